package io.weightstore.store;

import java.io.IOException;
import java.nio.file.Path;

/** Checks and repairs on a secure cluster: the repair's copy goes in under the master's write grant. */
class SecureReplicaCheckAndRepairTest extends ReplicaCheckAndRepairTest {
    @Override
    TestCluster newCluster(Path dir) throws IOException {
        return TestCluster.secure(dir, 3);
    }
}
