package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.cli.WeightstoreCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * What the bed's failure tests start from: five hosts with 100 Mbit/s NICs, so that a small load
 * takes seconds and a failure can strike in the middle; a master on host 0 and a node on each of
 * hosts 1..K; a 24 MiB synthetic checkpoint in 8 MiB files imported at 2 copies, and each of its
 * tensors' SHA-256 from the source files. Closing it removes the bed and checks nothing is left.
 *
 * @param logs where the master's and nodes' logs go
 * @param expected each tensor's SHA-256, by name, from the files that were imported
 */
record SmallBedCluster(HostBed bed, BedCluster cluster, Path logs, Map<String, String> expected) implements AutoCloseable {
    static final int HOSTS = 5;

    /**
     * The cluster a test class started, or why this machine cannot have one: each test then skips with
     * that reason, where an abort in the class's set-up would hide it in the report.
     */
    record Attempt(Optional<SmallBedCluster> started, String unavailable) implements AutoCloseable {
        /** Skips the calling test when there is no cluster. */
        void assumeStarted() {
            Assumptions.assumeTrue(started.isPresent(), () -> unavailable);
        }

        @Override
        public void close() throws Exception {
            if (started.isPresent()) {
                started.get().close();
            }
        }
    }

    /** As {@link #start}, except that a machine where network namespaces cannot be made gives the reason, not a failure. */
    static Attempt attempt(Path dir, String checkpoint, int nodeHosts, List<String> masterFlags) throws Exception {
        try {
            return new Attempt(Optional.of(start(dir, checkpoint, nodeHosts, masterFlags)), null);
        } catch (HostBedUnavailableException e) {
            return new Attempt(Optional.empty(), "no host bed here: " + e.getMessage());
        }
    }

    /** Makes the bed and the cluster in {@code dir}, with {@code masterFlags}, and imports the checkpoint as {@code checkpoint}. */
    static SmallBedCluster start(Path dir, String checkpoint, int nodeHosts, List<String> masterFlags) throws Exception {
        Path source = dir.resolve("checkpoint");
        assertThat(WeightstoreCli.commandLine().execute("synth", "--out", source.toString(), "--size", "24M", "--max-shard-size", "8M"))
                .isZero();
        Map<String, String> expected = TensorDigests.of(source);
        HostBed bed = HostBed.create(HostBed.Options.hosts(HOSTS).withRate("100mbit").withTmpfsSize("256m"));
        try {
            Path logs = Files.createDirectories(dir.resolve("logs"));
            BedCluster cluster = BedCluster.start(bed, bed.host(0), bed.hosts().subList(1, 1 + nodeHosts), 64L << 20, masterFlags, logs);
            cluster.importCheckpoint(bed.host(0), source, checkpoint, 2, 4);
            return new SmallBedCluster(bed, cluster, logs, expected);
        } catch (Exception | AssertionError e) {
            bed.close();
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
        bed.close();
        assertThat(bed.leftovers()).as("what the bed left behind").isEmpty();
    }
}
