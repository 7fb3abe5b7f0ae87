package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures of whole hosts, on the host bed: a master on host 0, nodes on hosts 1-3, loaders on host
 * 4, NICs at 100 Mbit/s so that a 24 MiB checkpoint takes seconds to load and a failure can strike
 * in the middle. Slices of 4 MiB at 2 replicas put every file on several nodes. Skipped, with the
 * reason, where network namespaces cannot be made.
 */
class BedFailureTest {
    private static final String CHECKPOINT = "failures";
    /** What the loader's host must have received before a failure is made: the load is under way. */
    private static final long MID_LOAD_BYTES = 4L << 20;
    private static final Duration LOAD_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path dir;

    private static SmallBedCluster.Attempt attempt;
    private static SmallBedCluster fixture;
    private static HostBed bed;
    private static BedCluster cluster;
    /** Each tensor's SHA-256, computed here from the files that were imported. */
    private static Map<String, String> expected;

    @BeforeAll
    static void up() throws Exception {
        attempt = SmallBedCluster.attempt(dir, CHECKPOINT, 3, List.of("--slice-size", "4M"));
        attempt.started().ifPresent(started -> {
            fixture = started;
            bed = started.bed();
            cluster = started.cluster();
            expected = started.expected();
        });
    }

    @AfterAll
    static void down() throws Exception {
        if (attempt != null) {
            attempt.close();
        }
    }

    /** Whatever a test did to a host is undone, and the next test starts with every node up. */
    @AfterEach
    void heal() throws Exception {
        if (bed == null) {
            return;
        }
        for (Host host : bed.hosts()) {
            host.heal();
            host.thaw();
        }
        cluster.awaitNodesUp(RECOVERY_TIMEOUT);
    }

    @Test
    void aNodeHostPartitionedMidLoadLeavesTheLoadToItsReplicas() throws Exception {
        assumeBed();
        HostProcess load = startLoad("partition");
        awaitReceived(bed.host(4), MID_LOAD_BYTES, load);
        bed.host(1).partition();
        assertThat(load.isAlive()).as("the load was under way when node host 1 went off the network").isTrue();
        assertCompleteAndCorrect(load);
    }

    @Test
    void aNodeHostFrozenMidLoadLeavesTheLoadToItsReplicas() throws Exception {
        assumeBed();
        HostProcess load = startLoad("freeze");
        awaitReceived(bed.host(4), MID_LOAD_BYTES, load);
        // Its connections stay open and its kernel still acknowledges: only the deadlines can tell.
        bed.host(2).freeze();
        assertThat(load.isAlive()).as("the load was under way when node host 2 froze").isTrue();
        assertCompleteAndCorrect(load);
    }

    @Test
    void aPartitionedMasterFailsCallsClearlyAndTheClusterRecoversWhenItIsBack() throws Exception {
        assumeBed();
        bed.host(0).partition();
        Host.Completed away = cluster.run(bed.host(4), "load", "weightstore://" + CHECKPOINT, "--store", cluster.master(), "--json");
        assertThat(away.exitCode()).as(away.output()).isEqualTo(1);
        assertThat(away.output()).contains(cluster.master());

        bed.host(0).heal();
        // The nodes' heartbeats reach it again, so it counts every node up.
        cluster.awaitNodesUp(RECOVERY_TIMEOUT);
        assertCompleteAndCorrect(startLoad("after-master"));
    }

    private static HostProcess startLoad(String name) throws Exception {
        return bed.host(4).start(fixture.logs().resolve("load-" + name + ".log"),
                cluster.cli("load", "weightstore://" + CHECKPOINT, "--store", cluster.master(), "--digest", "--json"));
    }

    private static void assertCompleteAndCorrect(HostProcess load) throws Exception {
        int exit = load.waitFor(LOAD_TIMEOUT);
        assertThat(exit).as(load.tail()).isZero();
        assertThat(TensorDigests.loaded(load.output())).isEqualTo(expected);
    }

    /** Waits until {@code host}'s NIC received {@code bytes} more than when called, while {@code process} runs. */
    private static void awaitReceived(Host host, long bytes, HostProcess process) throws Exception {
        long base = host.rxBytes();
        long deadline = System.nanoTime() + LOAD_TIMEOUT.toNanos();
        while (host.rxBytes() - base < bytes) {
            assertThat(process.isAlive()).as("the load ended before receiving %d bytes: %s", bytes, process.tail()).isTrue();
            assertThat(System.nanoTime()).as("%s received %d bytes in %s", host, bytes, LOAD_TIMEOUT).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static void assumeBed() {
        attempt.assumeStarted();
    }
}
