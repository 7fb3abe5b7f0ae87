package io.weightstore.store;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.NodeOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Self-healing on a secure cluster: a node dials the source of each copy over TLS, as a client
 * would, and reads with the master's read grant for exactly that range, its node role reading
 * nothing else.
 */
class SecureSelfHealingTest extends SelfHealingTest {
    @Override
    TestCluster newCluster(Path dir, MasterConfig config, UnaryOperator<NodeOptions> nodes) throws IOException {
        return TestCluster.secure(dir, 4, DataPlaneProtection.TLS, config, nodes);
    }
}
