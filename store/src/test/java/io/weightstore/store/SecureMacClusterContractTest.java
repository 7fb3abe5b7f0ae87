package io.weightstore.store;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.node.DataPlaneProtection;
import java.nio.file.Path;

/** The contract on a secure cluster whose nodes leave TLS for authenticated chunks in clear after each hello. */
class SecureMacClusterContractTest extends ClusterContractTest {
    @Override
    TestCluster startCluster(Path dir) throws StoreException {
        return TestCluster.secure(dir, 3, DataPlaneProtection.MAC);
    }
}
