package io.weightstore.store;

import io.weightstore.store.api.StoreException;
import java.nio.file.Path;

/**
 * The contract against a secure cluster: mutual TLS to the master, certificates for every process,
 * a TLS data plane, and nodes that serve only callers with the master's tickets. Whatever the
 * contract does must work the same once security is on.
 */
class SecureClusterContractTest extends ClusterContractTest {
    @Override
    TestCluster startCluster(Path dir) throws StoreException {
        return TestCluster.secure(dir, 3);
    }
}
