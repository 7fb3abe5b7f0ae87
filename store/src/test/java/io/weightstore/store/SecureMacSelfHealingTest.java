package io.weightstore.store;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.NodeOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/** Self-healing on a secure cluster whose data plane switches to authenticated chunks in clear after the handshake. */
class SecureMacSelfHealingTest extends SelfHealingTest {
    @Override
    TestCluster newCluster(Path dir, MasterConfig config, UnaryOperator<NodeOptions> nodes) throws IOException {
        return TestCluster.secure(dir, 4, DataPlaneProtection.MAC, config, nodes);
    }
}
