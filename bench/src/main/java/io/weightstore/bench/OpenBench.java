package io.weightstore.bench;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.FileKind;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.StreamBufferPool;
import io.weightstore.weights.loader.TensorStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a load costs besides moving its bytes, on a checkpoint of many files: opening it (the
 * manifest, every file's lease, header and tensor CRC table), streaming every tensor, and closing it
 * (ending the leases), each timed on its own, over a loopback cluster of three nodes. A checkpoint of
 * small shards makes the fixed costs per file show beside a stream that takes little time.
 */
public final class OpenBench {
    private static final CheckpointId ID = new CheckpointId("bench-open");
    private static final int CONNECTIONS = 8;

    /** One load's phases, in milliseconds. */
    public record Phases(double openMillis, double streamMillis, double closeMillis) {
        public double totalMillis() {
            return openMillis + streamMillis + closeMillis;
        }
    }

    /** Every timed load of a checkpoint of {@code weightFiles} files holding {@code weightBytes} bytes of weights, after {@code warmUpLoads}. */
    public record Report(int weightFiles, long weightBytes, int warmUpLoads, List<Phases> loads) {}

    private OpenBench() {}

    /**
     * Synthesizes (or reuses) a checkpoint of about {@code size} bytes in shards of at most
     * {@code shardSize} under {@code sourceDir}, imports it into three nodes with pools in
     * {@code poolDir}, and loads it {@code runs} times after the warm-up runs, each load a source
     * opened, streamed whole and closed, as an engine's load is.
     */
    public static Report run(Path sourceDir, Path poolDir, long size, long shardSize, int runs) throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("runs must be >= 1: runs=" + runs);
        }
        Path source = SyntheticSource.of(sourceDir, size, shardSize);
        CheckpointDirectory directory = CheckpointDirectory.read(source);
        List<CheckpointFile> weights = directory.files(FileKind.WEIGHT);
        Path work = Files.createTempDirectory(poolDir, "ws-open-bench-");
        try (BenchCluster cluster = new BenchCluster(work, directory.totalBytes())) {
            cluster.importCheckpoint(ID, source);
            List<Phases> loads = new ArrayList<>();
            try (StoreClient client = cluster.client(false, CONNECTIONS); StreamBufferPool buffers = new StreamBufferPool()) {
                for (int i = 0; i < Measurement.WARM_UP_RUNS; i++) {
                    load(client, buffers);
                }
                for (int i = 0; i < runs; i++) {
                    loads.add(load(client, buffers));
                }
            }
            return new Report(weights.size(), weights.stream().mapToLong(CheckpointFile::size).sum(), Measurement.WARM_UP_RUNS, loads);
        } finally {
            WorkDirectory.delete(work);
        }
    }

    private static Phases load(StoreClient client, StreamBufferPool buffers) throws Exception {
        long start = System.nanoTime();
        CheckpointSource checkpoint = CheckpointSource.open(client, ID, LoadOptions.defaults().withBufferPool(buffers));
        long opened = System.nanoTime();
        long streamed;
        try {
            try (TensorStream stream = checkpoint.stream()) {
                while (stream.next() != null) {
                    // Each tensor was read and checked before next() handed it out; nothing more is done with it.
                }
            }
            streamed = System.nanoTime();
        } finally {
            checkpoint.close();
        }
        long closed = System.nanoTime();
        return new Phases((opened - start) / 1e6, (streamed - opened) / 1e6, (closed - streamed) / 1e6);
    }
}
