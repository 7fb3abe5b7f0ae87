package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 12.1: a node frozen (SIGSTOP) in the middle of a load costs the load a deadline, not the load. */
class FrozenNodeDuringLoadTest {
    /** The client's default transfer deadline base; a frozen node may cost about one of these. */
    private static final Duration DEADLINE = Duration.ofSeconds(5);

    @TempDir
    Path tmp;

    @Test
    void loadAtTwoReplicasCompletesWithEveryTensorIntactWhenANodeFreezesMidLoad() throws Exception {
        ChaosCheckpoint checkpoint = ChaosCheckpoint.write(tmp.resolve("source"));
        try (ChaosCluster cluster = new ChaosCluster(tmp, 3, "1M", "128M")) {
            checkpoint.importInto(cluster.client(), "frozen", 2);

            long start = System.nanoTime();
            assertThat(TensorDigests.ofLoad(cluster.client(), "frozen", () -> {})).isEqualTo(checkpoint.digests());
            Duration unfrozen = Duration.ofNanos(System.nanoTime() - start);

            ChaosCluster.Node victim = cluster.node(1);
            start = System.nanoTime();
            Map<String, String> loaded = TensorDigests.ofLoad(cluster.client(), "frozen", victim::freeze);
            Duration frozen = Duration.ofNanos(System.nanoTime() - start);

            assertThat(loaded).isEqualTo(checkpoint.digests());
            System.out.printf("load with node %s frozen mid-load: %d ms (%d ms unfrozen)%n", victim.nodeId(), frozen.toMillis(),
                    unfrozen.toMillis());
            assertThat(frozen).as("a frozen node costs about one transfer deadline").isLessThan(unfrozen.plus(DEADLINE.multipliedBy(3)));
            victim.thaw();
        }
    }
}
