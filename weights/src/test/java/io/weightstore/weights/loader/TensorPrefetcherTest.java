package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefetcher hands out memory the engine owns; holding on to a batch after the engine took its
 * tensors would keep what the engine let go of (a tensor it converted, one it never asked for) for
 * as long as the engine keeps the prefetcher, which Jlama does for the model's life.
 */
class TensorPrefetcherTest {
    private static final CheckpointId ID = new CheckpointId("tiny");
    /** The beans of G1, Parallel and Serial that count full (System.gc) collections, not young ones. */
    private static final Set<String> FULL_COLLECTORS = Set.of("G1 Old Generation", "PS MarkSweep", "MarkSweepCompact");

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient store;
    private CheckpointSource source;

    /** On a cluster read over its sockets: files seen in place are not prefetched. */
    @BeforeEach
    void importAndOpen() throws Exception {
        cluster = new TestCluster(tmp.resolve("cluster"), 1);
        store = cluster.client();
        Path dir = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 5), dir, b -> {});
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(ID, "org/tiny", "main", dir, 1, false, 1), Progress.NONE);
        source = CheckpointSource.open(store, ID, LoadOptions.defaults().withCacheDir(tmp.resolve("cache")));
    }

    @AfterEach
    void close() throws Exception {
        source.close();
        store.close();
        cluster.close();
    }

    @Test
    void memoryOfTakenTensorsIsFreedOnceTheEngineDropsThemThoughItKeepsThePrefetcher() throws Exception {
        List<String> names = new ArrayList<>(source.tensors().keySet());
        try (TensorPrefetcher prefetcher = source.prefetch(64 << 10, 2)) {
            List<WeakReference<MemorySegment.Scope>> scopes = new ArrayList<>();
            for (String name : names) {
                MemorySegment tensor = prefetcher.take(name).orElseThrow();
                tensor.get(ValueLayout.JAVA_BYTE, 0);
                scopes.add(new WeakReference<>(tensor.scope()));
            }
            assertThat(scopes).as("batches").hasSizeGreaterThan(1);

            for (int i = 0; i < 50 && scopes.stream().anyMatch(s -> s.get() != null); i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertThat(scopes).as("the memory of every batch, all of whose tensors were taken and dropped")
                    .allSatisfy(scope -> assertThat(scope.get()).isNull());
            assertThat(prefetcher.take(names.getFirst())).as("taken before, its batch let go: read it instead").isEmpty();
        }
    }

    @Test
    void closingLetsTheCollectorFreeWhatTheEngineDroppedWithoutBeingAsked() throws Exception {
        List<WeakReference<MemorySegment.Scope>> scopes;
        try (TensorPrefetcher prefetcher = source.prefetch(64 << 10, 2)) {
            scopes = takeEachAndDropIt(prefetcher);
        }

        assertThat(scopes).as("the memory of every batch, once the prefetcher closed").allSatisfy(scope -> assertThat(scope.get()).isNull());
    }

    /** In a frame of its own, so that no local of the test's keeps the last tensor reachable. */
    private List<WeakReference<MemorySegment.Scope>> takeEachAndDropIt(TensorPrefetcher prefetcher) throws Exception {
        List<WeakReference<MemorySegment.Scope>> scopes = new ArrayList<>();
        for (String name : source.tensors().keySet()) {
            scopes.add(new WeakReference<>(prefetcher.take(name).orElseThrow().scope()));
        }
        return scopes;
    }

    @Test
    void anEmptyTensorBetweenTwoOthersLeavesTheOneAfterItReadable() throws Exception {
        Path dir = tmp.resolve("with-empty");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), "{}");
        SafetensorsWriter.write(dir.resolve("model.safetensors"), List.of(new TensorSpec("a", DType.F32, List.of(3L)),
                new TensorSpec("b", DType.F32, List.of(0L)), new TensorSpec("c", DType.F32, List.of(4L))), Map.of(),
                (tensor, out) -> SafetensorsWriter.writeFully(out, ByteBuffer.wrap(bytesOf(tensor.name(), tensor.byteSize()))));
        CheckpointId id = new CheckpointId("with-empty");
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(id, "org/empty", "main", dir, 1, false, 1), Progress.NONE);
        try (CheckpointSource withEmpty = CheckpointSource.open(store, id, LoadOptions.defaults().withCacheDir(tmp.resolve("cache2")));
                TensorPrefetcher prefetcher = withEmpty.prefetch(1 << 20, 2)) {
            assertThat(prefetcher.take("a").orElseThrow().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytesOf("a", 12));
            assertThat(prefetcher.take("b").orElseThrow().byteSize()).isZero();
            assertThat(prefetcher.take("c").orElseThrow().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(bytesOf("c", 16));
        }
    }

    /** Bytes that tell tensors, and positions in them, apart. */
    private static byte[] bytesOf(String name, long size) {
        byte[] bytes = new byte[(int) size];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (name.charAt(0) * 31 + i);
        }
        return bytes;
    }

    @Test
    void aPrefetcherThatReadNothingClosesWithoutAFullCollection() {
        List<GarbageCollectorMXBean> full = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(gc -> FULL_COLLECTORS.contains(gc.getName())).toList();
        assumeThat(full).as("a collector whose full collections are counted apart").isNotEmpty();
        long before = full.stream().mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();

        new TensorPrefetcher(store, List.of(), 64 << 10, 2).close();

        assertThat(full.stream().mapToLong(GarbageCollectorMXBean::getCollectionCount).sum())
                .as("full collections, after closing a prefetcher of every tensor seen in place").isEqualTo(before);
    }

    @Test
    void aClosedPrefetcherHoldsNothingAndSaysSo() throws Exception {
        String name = source.tensors().keySet().iterator().next();
        TensorPrefetcher prefetcher = source.prefetch(64 << 10, 2);
        prefetcher.close();
        assertThat(prefetcher.take(name)).isEqualTo(Optional.empty());
    }
}
