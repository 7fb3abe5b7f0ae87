package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.SliceMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Checks and repairs on a secure cluster: the repair's copy goes in under the master's write grant.
 * A node's id is its certificate's name there, so a node back without its pool is known at once,
 * and the master makes its copies again by itself.
 */
class SecureReplicaCheckAndRepairTest extends ReplicaCheckAndRepairTest {
    @Override
    TestCluster newCluster(Path dir) throws IOException {
        return TestCluster.secure(dir, 3);
    }

    @Override
    @Test
    void copiesOnANodeBackWithoutItsPoolAreMissingAndMoveToOtherNodes() throws Exception {
        String lost = cluster().node(0).nodeId();
        long held = client().stat(KEY).slices().stream().filter(s -> s.nodeIds().contains(lost)).count();
        assertThat(held).isPositive();
        cluster().restartNodeWithoutItsPool(0);
        Awaits.until(Duration.ofSeconds(60), "the master to copy node " + lost + "'s slices to other nodes", () -> {
            for (SliceMeta slice : client().stat(KEY).slices()) {
                if (slice.nodeIds().contains(lost) || slice.replicas().size() < 2) {
                    return false;
                }
            }
            return true;
        });
        Awaits.until(Duration.ofSeconds(30), "node " + lost + " to register again with its new pool",
                () -> client().status().nodes().stream().anyMatch(n -> n.nodeId().equals(lost) && n.up()));
        assertAllGoodAndDataIntact();
    }
}
