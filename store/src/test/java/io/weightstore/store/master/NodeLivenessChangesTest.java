package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeStatus;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Liveness changes as the liveness tick reports them, while heartbeats land outside the master's monitor. */
class NodeLivenessChangesTest {
    private final AtomicLong now = new AtomicLong(1_000_000);
    /** Runs once, at the next look at the clock: there, it stands for a heartbeat arriving on another thread. */
    private final AtomicReference<Runnable> atNextTick = new AtomicReference<>();

    @Test
    void aHeartbeatLandingWhileANodeIsLookedAtLeavesItDownThenUpReportedOnceEach() {
        NodeRegistry nodes = new NodeRegistry(this::clock, Duration.ofSeconds(5));
        NodeInfo n1 = new NodeInfo("n1", new Endpoint("host-n1", 7071), "/dev/shm/n1", new UUID(1, 1), 1L << 30);
        nodes.register(n1);
        now.addAndGet(6_000);
        atNextTick.set(() -> nodes.heard("n1"));

        assertThat(nodes.livenessChanges()).extracting(NodeStatus::nodeId, NodeStatus::up).containsExactly(tuple("n1", false));
        assertThat(nodes.livenessChanges()).extracting(NodeStatus::nodeId, NodeStatus::up).containsExactly(tuple("n1", true));
        assertThat(nodes.livenessChanges()).isEmpty();
    }

    private long clock() {
        Runnable arriving = atNextTick.getAndSet(null);
        if (arriving != null) {
            arriving.run();
        }
        return now.get();
    }
}
