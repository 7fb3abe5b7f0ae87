package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorSpec;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch larger than a stream's half is read into memory of its own, a shared arena the collector
 * never frees: a stream closed while such a read runs must free it all the same.
 */
class TensorStreamCloseTest {
    private static final long TENSOR_BYTES = 40L << 20;
    private static final int ROUNDS = 8;

    @TempDir
    Path tmp;

    @Test
    void closingAStreamWhileAnOversizedBatchIsReadFreesItsMemory() throws Exception {
        Path source = tmp.resolve("source");
        Files.createDirectories(source);
        Files.writeString(source.resolve("config.json"), "{}");
        SafetensorsWriter.write(source.resolve("model.safetensors"),
                List.of(new TensorSpec("embed", DType.F32, List.of(TENSOR_BYTES / 4 / 1024, 1024L))), Map.of(),
                (tensor, out) -> {
                    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
                    for (long written = 0; written < tensor.byteSize(); written += chunk.capacity()) {
                        SafetensorsWriter.writeFully(out, chunk.clear());
                    }
                });
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 3); StoreClient store = cluster.client()) {
            CheckpointId id = new CheckpointId("big");
            new CheckpointImporter(new Catalog(store)).run(new ImportRequest(id, "org/big", "main", source, 1, false, 1), Progress.NONE);
            try (CheckpointSource checkpoint = CheckpointSource.open(store, id, LoadOptions.defaults().withBuffer(2 << 20)
                    .withCacheDir(tmp.resolve("cache")))) {
                // A first round, so that what the JVM keeps for good is there before the count starts.
                checkpoint.stream().close();
                long before = residentBytes();
                for (int round = 0; round < ROUNDS; round++) {
                    // Read ahead starts at once, on a thread of the stream's; the embedding takes tens of milliseconds to arrive.
                    try (TensorStream stream = checkpoint.stream()) {
                        Thread.sleep(5);
                    }
                }
                long grown = residentBytes() - before;
                assertThat(grown).as("resident memory grown over %d streams closed mid-read of a %d MiB batch", ROUNDS,
                        TENSOR_BYTES >> 20).isLessThan(ROUNDS * TENSOR_BYTES / 2);
            }
        }
    }

    private static long residentBytes() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
