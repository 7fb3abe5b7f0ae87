package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.DType;
import io.weightstore.format.FileRangeSource;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorInfo;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.Awaits;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.CheckpointStatus;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Streaming tensors from a loopback cluster, compared byte for byte with the source files. */
class LoaderTest {
    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient store;
    private Path source;
    private Map<String, byte[]> expected;

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        store = cluster.client();
        source = tmp.resolve("source");
        // Several shards, an embedding larger than a 1 MiB buffer's half, and a file of mixed dtypes.
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 256, 2, 4, 2, 512, 1000, DType.F32, 1 << 20, 7), source, b -> {});
        Map<String, byte[]> mixed = new LinkedHashMap<>();
        List<TensorSpec> specs = List.of(new TensorSpec("extra.bf16", DType.BF16, List.of(8L, 12L)),
                new TensorSpec("extra.i8", DType.I8, List.of(16L, 4L)), new TensorSpec("extra.f16", DType.F16, List.of(4L, 8L)),
                new TensorSpec("extra.u8.scalar", DType.U8, List.of()), new TensorSpec("extra.empty", DType.F32, List.of(0L, 4L)));
        Random random = new Random(3);
        for (TensorSpec spec : specs) {
            byte[] bytes = new byte[(int) spec.byteSize()];
            random.nextBytes(bytes);
            mixed.put(spec.name(), bytes);
        }
        SafetensorsWriter.write(source.resolve("extra.safetensors"), specs, Map.of(), mixed);
        expected = readSourceTensors(source);
        importAs("ckpt", 2);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private void importAs(String id, int replicas) throws IOException {
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId(id), "org/m", "main", source, replicas,
                false, 2), Progress.NONE);
    }

    private static Map<String, byte[]> readSourceTensors(Path dir) throws IOException {
        Map<String, byte[]> tensors = new HashMap<>();
        for (CheckpointFile file : CheckpointDirectory.read(dir).files()) {
            if (file.header().isEmpty()) {
                continue;
            }
            SafetensorsHeader header = file.header().get();
            try (FileRangeSource in = FileRangeSource.open(dir.resolve(file.path()))) {
                for (TensorInfo t : header.tensors()) {
                    ByteBuffer bytes = ByteBuffer.allocate((int) t.byteSize());
                    in.readFully(header.dataStart() + t.begin(), bytes);
                    tensors.put(t.name(), bytes.array());
                }
            }
        }
        return tensors;
    }

    private CheckpointSource open(String id, long buffer) throws IOException {
        return CheckpointSource.open(store, new CheckpointId(id), LoadOptions.defaults().withBuffer(buffer));
    }

    private static Map<String, Tensor> collect(TensorStream stream, Map<String, byte[]> bytes) throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        Tensor t;
        while ((t = stream.next()) != null) {
            tensors.put(t.name(), t);
            bytes.put(t.name(), t.data().toArray(ValueLayout.JAVA_BYTE));
        }
        return tensors;
    }

    @ParameterizedTest
    @ValueSource(longs = {1L << 20, 3L << 20, 512L << 20})
    void streamedTensorsAreByteIdenticalToTheSourceFilesForAnyBufferSize(long buffer) throws IOException {
        try (CheckpointSource checkpoint = open("ckpt", buffer); TensorStream stream = checkpoint.stream()) {
            Map<String, byte[]> got = new HashMap<>();
            Map<String, Tensor> tensors = collect(stream, got);
            assertThat(got.keySet()).isEqualTo(expected.keySet());
            for (String name : expected.keySet()) {
                assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
            }
            assertThat(tensors.get("extra.bf16").dtype()).isEqualTo(DType.BF16);
            assertThat(tensors.get("extra.u8.scalar").shape()).isEmpty();
            assertThat(tensors.get("model.embed_tokens.weight").shape()).containsExactly(1000L, 256L);
        }
    }

    /** An engine reloads the files awaitChecks names (JlamaModels builds its model again): files it could not map are not among them. */
    @Test
    void filesNotSeenInPlaceAreReadAndNotReportedAsFailingTheirCheck() throws IOException {
        try (CheckpointSource checkpoint = open("ckpt", 1 << 20)) {
            assertThat(checkpoint.awaitChecks()).as("no file is mapped over sockets, and none failed a check").isEmpty();
        }
    }

    @Test
    void onTheNodesHostTensorsAreReadOnlyViewsOfThePoolsValidUntilTheSourceCloses() throws IOException {
        MemorySegment kept;
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true));
                CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults())) {
            checkpoint.tensors();
            long copiedBefore = sameHost.bytesRead();
            try (TensorStream stream = checkpoint.stream()) {
                Map<String, byte[]> got = new HashMap<>();
                Map<String, Tensor> tensors = collect(stream, got);
                for (String name : expected.keySet()) {
                    assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                }
                assertThat(tensors.values()).allSatisfy(t -> assertThat(t.data().isReadOnly()).as(t.name()).isTrue());
                kept = tensors.get("model.embed_tokens.weight").data();
            }
            assertThat(sameHost.bytesRead()).as("no byte copied").isEqualTo(copiedBefore);
            assertThat(checkpoint.bytesRead() - copiedBefore).isEqualTo(checkpoint.tensorBytes());
            // Past its stream a view stays valid: it belongs to the source, not to the stream's buffers.
            assertThat(kept.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected.get("model.embed_tokens.weight"));
        }
        assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
    }

    /**
     * An engine keeps the views of a same-host load for the model's life. A file removed under them with force keeps its
     * room only until the load's lease on it ends, then another object's bytes may land there: the views are unmapped
     * once the load learns of the removal, so the engine's next access fails rather than reading them.
     */
    @Test
    void viewsOfAFileRemovedUnderThemAreUnmappedOnceTheLoadLearnsOfIt() throws Exception {
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true)
                .withLeaseDuration(Duration.ofSeconds(1)));
                CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults())) {
            MemorySegment kept;
            try (TensorStream stream = checkpoint.stream()) {
                kept = collect(stream, new HashMap<>()).get("model.embed_tokens.weight").data();
            }
            assertThat(kept.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected.get("model.embed_tokens.weight"));
            String key = checkpoint.tensors().get("model.embed_tokens.weight").object().key();

            store.remove(key, true);

            Awaits.until(Duration.ofSeconds(30), "the views unmapped", () -> !kept.scope().isAlive());
            assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    /** A pool this client took for local that it can no longer open (moved since, say) is no reason to fail: the store reads it. */
    @Test
    void filesWhosePoolsCannotBeMappedHereAreReadInstead() throws IOException {
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true))) {
            try (CheckpointSource first = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults())) {
                long before = sameHost.bytesRead();
                try (TensorStream stream = first.stream()) {
                    collect(stream, new HashMap<>());
                }
                assertThat(sameHost.bytesRead()).as("seen in place, no tensor read").isEqualTo(before);
            }
            List<Path> moved = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                moved.add(Files.move(cluster.pool(i), cluster.pool(i).resolveSibling("moved-" + i)));
            }
            try (CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults())) {
                long before = sameHost.bytesRead();
                Map<String, byte[]> got = new HashMap<>();
                try (TensorStream stream = checkpoint.stream()) {
                    collect(stream, got);
                }
                for (String name : expected.keySet()) {
                    assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                }
                assertThat(sameHost.bytesRead() - before).as("every tensor read through the store").isEqualTo(checkpoint.tensorBytes());
            } finally {
                for (int i = 0; i < 3; i++) {
                    Files.move(moved.get(i), cluster.pool(i));
                }
            }
        }
    }

    @Test
    void onTheNodesHostColumnShardsAreCopiedAndCheckedAndRowShardsSeenInPlace() throws IOException {
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true));
                CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults());
                CheckpointSource loopback = CheckpointSource.open(store, new CheckpointId("ckpt"), LoadOptions.defaults());
                TensorStream mapped = checkpoint.stream(1, 2, ShardPlan.preset("llama"));
                TensorStream copied = loopback.stream(1, 2, ShardPlan.preset("llama"))) {
            int inPlace = 0;
            int tensors = 0;
            for (Tensor ours; (ours = mapped.next()) != null; tensors++) {
                Tensor theirs = copied.next();
                assertThat(ours.name()).isEqualTo(theirs.name());
                assertThat(ours.data().mismatch(theirs.data())).as(ours.name()).isEqualTo(-1L);
                assertThat(ours.data().isReadOnly()).as(ours.name()).isEqualTo(ours.split() != Split.DIM1);
                inPlace += ours.data().isReadOnly() ? 1 : 0;
            }
            assertThat(copied.next()).isNull();
            // What a load reports: the tensors handed over in place were not checked against the import's CRCs here.
            assertThat(mapped.seenInPlace()).isEqualTo(inPlace).isPositive();
            assertThat(mapped.clientChecked()).isEqualTo(tensors - inPlace).isPositive();
            assertThat(copied.seenInPlace()).isZero();
            assertThat(copied.clientChecked()).isEqualTo(tensors);
        }
    }

    @Test
    void aPoolThatFailsItsCheckIsReadFromTheOtherCopyInstead() throws IOException {
        String file;
        try (CheckpointSource loopback = open("ckpt", 3L << 20)) {
            file = loopback.tensors().get("model.embed_tokens.weight").file();
        }
        cluster.flipByte("weights/ckpt/files/" + file, 0, 0, 4096);
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true));
                CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults());
                TensorStream stream = checkpoint.stream()) {
            Map<String, byte[]> got = new HashMap<>();
            Map<String, Tensor> tensors = collect(stream, got);
            for (String name : expected.keySet()) {
                assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
            }
            assertThat(tensors.values()).filteredOn(t -> t.file().equals(file)).isNotEmpty()
                    .allSatisfy(t -> assertThat(t.data().isReadOnly()).as(t.name()).isFalse());
        }
    }

    /** A load that fails, or an engine that stops early, closes its source while the checks of files seen in place still run. */
    @Test
    void aSourceClosedWhileItsChecksRunStopsThemAndLeavesItsClientAsItWas() throws IOException {
        try (StoreClient sameHost = cluster.client(ClientOptions.defaults().withSameHostPath(true))) {
            try (CheckpointSource checkpoint = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults())) {
                for (CheckpointSource.Location location : checkpoint.tensors().values()) {
                    assertThat(checkpoint.mappedAhead(location, ShardRead.whole(location.info()))).as(location.info().name()).isPresent();
                }
            }
            // Interrupted, a check must have ended nothing but itself: not the client's workers, nor a channel of theirs.
            try (CheckpointSource again = CheckpointSource.open(sameHost, new CheckpointId("ckpt"), LoadOptions.defaults());
                    TensorStream stream = again.stream()) {
                Map<String, byte[]> got = new HashMap<>();
                collect(stream, got);
                assertThat(got.keySet()).isEqualTo(expected.keySet());
                for (String name : expected.keySet()) {
                    assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                }
            }
        }
    }

    @Test
    void laterStreamsOfOneSourceReuseItsBuffersAndStillReadEveryByte() throws IOException {
        try (CheckpointSource checkpoint = open("ckpt", 3L << 20)) {
            MemorySegment kept;
            try (TensorStream first = checkpoint.stream()) {
                Tensor tensor;
                do {
                    tensor = first.next();
                } while (tensor.data().byteSize() == 0);
                kept = tensor.data();
            }
            // The first stream's buffers now serve the second; the tensor kept from the first must not
            // quietly show the second stream's bytes.
            assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            for (int round = 0; round < 2; round++) {
                try (TensorStream again = checkpoint.stream()) {
                    Map<String, byte[]> got = new HashMap<>();
                    collect(again, got);
                    assertThat(got.keySet()).isEqualTo(expected.keySet());
                    for (String name : expected.keySet()) {
                        assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                    }
                }
            }
        }
    }

    @Test
    void aStreamAskedAgainAfterItsLastTensorStaysAtItsEnd() throws IOException {
        // 1 MiB buffers: several batches, so the halves hold later batches than the first when the stream ends.
        try (CheckpointSource checkpoint = open("ckpt", 1L << 20); TensorStream stream = checkpoint.stream()) {
            collect(stream, new HashMap<>());
            assertThat(stream.next()).isNull();
            assertThat(stream.next()).isNull();
        }
    }

    @Test
    void aStreamClosedWithAnInterruptPendingStillEndsTheTensorsItHandedOut() throws IOException {
        try (CheckpointSource checkpoint = open("ckpt", 3L << 20)) {
            MemorySegment kept;
            TensorStream stream = checkpoint.stream();
            Tensor tensor;
            do {
                tensor = stream.next();
            } while (tensor.data().byteSize() == 0);
            kept = tensor.data();
            Thread.currentThread().interrupt();
            stream.close();
            assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
            assertThatThrownBy(() -> kept.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
            Map<String, byte[]> got = new HashMap<>();
            try (TensorStream again = checkpoint.stream()) {
                collect(again, got);
            }
            assertThat(got.keySet()).as("the buffers went back to the source for the next stream").isEqualTo(expected.keySet());
        }
    }

    @Test
    void tensorOfAnOversizedBatchFailsLoudlyOnceTheStreamMovesOn() throws IOException {
        // A 1 MiB buffer has 512 KiB halves; the 1000 x 256 F32 embedding (1000 KiB) gets memory of its own.
        try (CheckpointSource checkpoint = open("ckpt", 1L << 20); TensorStream stream = checkpoint.stream()) {
            Tensor tensor;
            do {
                tensor = stream.next();
            } while (!tensor.name().equals("model.embed_tokens.weight"));
            MemorySegment embedding = tensor.data();
            assertThat(embedding.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(expected.get("model.embed_tokens.weight"));
            stream.next();
            assertThatThrownBy(() -> embedding.get(ValueLayout.JAVA_BYTE, 0)).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void sourcesSharingAPoolLeaveItOpenForTheNext() throws IOException {
        try (StreamBufferPool pool = new StreamBufferPool()) {
            LoadOptions options = LoadOptions.defaults().withBuffer(3L << 20).withBufferPool(pool);
            for (int source = 0; source < 2; source++) {
                try (CheckpointSource checkpoint = CheckpointSource.open(store, new CheckpointId("ckpt"), options);
                        TensorStream stream = checkpoint.stream()) {
                    Map<String, byte[]> got = new HashMap<>();
                    collect(stream, got);
                    for (String name : expected.keySet()) {
                        assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                    }
                }
            }
            // Still open, and holding the halves the streams gave back.
            assertThat(pool.borrow(1).halfBytes()).isGreaterThan(1);
        }
    }

    @Test
    void twoSourcesOnOneClientNeverEndEachOthersLeases() throws IOException {
        Catalog catalog = new Catalog(store);
        Manifest manifest = catalog.readyManifest(new CheckpointId("ckpt"));
        List<String> weightKeys = manifest.files().stream().filter(f -> f.isWeight()).map(f -> catalog.file(manifest, f).key())
                .toList();
        StoreClient other = cluster.client();
        try (CheckpointSource first = open("ckpt", 1L << 20)) {
            try (CheckpointSource second = open("ckpt", 1L << 20); TensorStream stream = second.stream()) {
                collect(stream, new HashMap<>());
            }
            // The second source has closed, on the same client; the first still holds every file.
            for (String key : weightKeys) {
                assertThatThrownBy(() -> other.remove(key, false)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
            }
            try (TensorStream stream = first.stream()) {
                Map<String, byte[]> got = new HashMap<>();
                collect(stream, got);
                for (String name : expected.keySet()) {
                    assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
                }
            }
        }
        other.remove(weightKeys.getFirst(), false);
    }

    @Test
    void anOpenSourceHoldsItsCrcTablesUntilItClosesAndLeavesNoLeaseBehind() throws IOException {
        Catalog catalog = new Catalog(store);
        CheckpointId id = new CheckpointId("ckpt");
        Manifest manifest = catalog.readyManifest(id);
        List<String> tables = manifest.files().stream().filter(f -> f.isSafetensors() && f.tensorCrcsSha256() != null)
                .map(f -> catalog.file(manifest, f).checksKey()).toList();
        assertThat(tables).isNotEmpty();
        StoreClient other = cluster.client();
        try (CheckpointSource source = open("ckpt", 1L << 20)) {
            assertThat(source.manifest()).isEqualTo(manifest);
            for (String key : tables) {
                assertThatThrownBy(() -> other.remove(key, false)).as(key)
                        .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
            }
        }
        other.remove(catalog.manifestObject(id).orElseThrow().key(), false);
        for (String key : tables) {
            other.remove(key, false);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void ranksReadTheirSliceAndTogetherCoverEachSplitTensorOnce(int worldSize) throws IOException {
        ShardPlan plan = ShardPlan.preset("llama");
        Map<String, List<byte[]>> parts = new HashMap<>();
        Map<String, Split> splits = new HashMap<>();
        long total = expected.values().stream().mapToLong(b -> b.length).sum();
        for (int rank = 0; rank < worldSize; rank++) {
            try (CheckpointSource checkpoint = open("ckpt", 2L << 20)) {
                checkpoint.tensors();
                long before = checkpoint.bytesRead();
                long split = 0;
                long replicated = 0;
                try (TensorStream stream = checkpoint.stream(rank, worldSize, plan)) {
                    Tensor t;
                    while ((t = stream.next()) != null) {
                        splits.put(t.name(), t.split());
                        parts.computeIfAbsent(t.name(), k -> new ArrayList<>()).add(t.data().toArray(ValueLayout.JAVA_BYTE));
                        long full = expected.get(t.name()).length;
                        if (t.split() == Split.REPLICATE) {
                            replicated += full;
                        } else {
                            split += full;
                            assertThat(t.shape().get(t.split().dimension()) * worldSize)
                                    .isEqualTo(t.fullShape().get(t.split().dimension()));
                        }
                    }
                }
                long read = checkpoint.bytesRead() - before;
                assertThat(read).as("bytes read by rank %d of %d", rank, worldSize)
                        .isLessThanOrEqualTo((long) (1.05 * (split / (double) worldSize + replicated)));
                assertThat(read).isLessThan(total);
            }
        }
        assertThat(splits).containsEntry("model.layers.0.self_attn.q_proj.weight", Split.DIM0)
                .containsEntry("model.layers.1.mlp.down_proj.weight", Split.DIM1)
                .containsEntry("model.norm.weight", Split.REPLICATE);
        for (Map.Entry<String, List<byte[]>> entry : parts.entrySet()) {
            byte[] full = expected.get(entry.getKey());
            Split split = splits.get(entry.getKey());
            if (split == Split.REPLICATE) {
                assertThat(entry.getValue()).allSatisfy(p -> assertThat(p).isEqualTo(full));
            } else {
                assertThat(reassemble(entry.getValue(), split, full.length, rowBytes(entry.getKey())))
                        .as(entry.getKey()).isEqualTo(full);
            }
        }
    }

    @Test
    void ranksStreamingAtOnceFromOneSourceEachGetWhatTheyGetOneAfterAnother() throws Exception {
        int worldSize = 4;
        try (CheckpointSource checkpoint = open("ckpt", 2L << 20)) {
            List<Map<String, byte[]>> oneAfterAnother = new ArrayList<>();
            for (int rank = 0; rank < worldSize; rank++) {
                oneAfterAnother.add(rankBytes(checkpoint, rank, worldSize));
            }
            for (int round = 0; round < 2; round++) {
                List<Future<Map<String, byte[]>>> atOnce = new ArrayList<>();
                try (ExecutorService ranks = Executors.newFixedThreadPool(worldSize)) {
                    for (int rank = 0; rank < worldSize; rank++) {
                        int r = rank;
                        atOnce.add(ranks.submit(() -> rankBytes(checkpoint, r, worldSize)));
                    }
                }
                for (int rank = 0; rank < worldSize; rank++) {
                    assertThat(atOnce.get(rank).get()).as("rank %d, round %d", rank, round)
                            .containsExactlyEntriesOf(oneAfterAnother.get(rank));
                }
            }
        }
    }

    private static Map<String, byte[]> rankBytes(CheckpointSource checkpoint, int rank, int worldSize) throws IOException {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        try (TensorStream stream = checkpoint.stream(rank, worldSize, ShardPlan.preset("llama"))) {
            collect(stream, bytes);
        }
        return bytes;
    }

    /** Bytes per row of a 2-D tensor in the source, from its shape. */
    private long rowBytes(String name) throws IOException {
        try (CheckpointSource checkpoint = open("ckpt", 1 << 20)) {
            TensorInfo info = checkpoint.tensors().get(name).info();
            return info.byteSize() / info.shape().get(0);
        }
    }

    /** Concatenates rank parts along the split dimension of a row-major 2-D tensor. */
    private static byte[] reassemble(List<byte[]> parts, Split split, int size, long rowBytes) {
        byte[] full = new byte[size];
        if (split == Split.DIM0) {
            int at = 0;
            for (byte[] part : parts) {
                System.arraycopy(part, 0, full, at, part.length);
                at += part.length;
            }
            return full;
        }
        int rows = (int) (size / rowBytes);
        int partWidth = parts.getFirst().length / rows;
        for (int p = 0; p < parts.size(); p++) {
            for (int row = 0; row < rows; row++) {
                System.arraycopy(parts.get(p), row * partWidth, full, (int) (row * rowBytes + (long) p * partWidth), partWidth);
            }
        }
        return full;
    }

    @Test
    void unevenSplitIsAnErrorNamingTheTensorUnlessAllowed() throws IOException {
        ShardPlan strict = new ShardPlan(List.of(new ShardPlan.Rule(Pattern.compile("extra\\.bf16"), Split.DIM1)),
                Split.REPLICATE, false);
        try (CheckpointSource checkpoint = open("ckpt", 1 << 20)) {
            assertThatThrownBy(() -> checkpoint.stream(0, 5, strict)).hasMessageContaining("tensor extra.bf16")
                    .hasMessageContaining("does not split evenly over 5 ranks");
            ShardPlan lenient = new ShardPlan(strict.rules(), Split.REPLICATE, true);
            int total = 0;
            for (int rank = 0; rank < 5; rank++) {
                try (TensorStream stream = checkpoint.stream(rank, 5, lenient)) {
                    Tensor t;
                    while ((t = stream.next()) != null) {
                        if (t.name().equals("extra.bf16")) {
                            total += (int) (long) t.shape().get(1);
                        }
                    }
                }
            }
            assertThat(total).isEqualTo(12);
        }
    }

    @Test
    void aRankWithNoColumnsOfAFilesLastTensorLoadsWhenTheFileEndsOnASliceBoundary() throws IOException {
        // A file of exactly one slice whose last tensor, F32 [4, 1], leaves rank 1 of 2 no columns: its empty rows start at
        // the object's very end.
        Path oneSlice = Files.createDirectories(tmp.resolve("one-slice"));
        Files.writeString(oneSlice.resolve("config.json"), "{}");
        Path file = oneSlice.resolve("model.safetensors");
        long padding = (TestCluster.SLICE - 1024) / 4;
        for (int attempt = 0; attempt < 3 && padThenColumns(file, padding) != TestCluster.SLICE; attempt++) {
            padding += (TestCluster.SLICE - Files.size(file)) / 4;
        }
        assertThat(Files.size(file)).isEqualTo(TestCluster.SLICE);
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("one-slice"), "org/m", "main", oneSlice, 2,
                false, 2), Progress.NONE);
        ShardPlan columns = new ShardPlan(List.of(new ShardPlan.Rule(Pattern.compile("w"), Split.DIM1)), Split.REPLICATE, true);
        try (CheckpointSource checkpoint = CheckpointSource.open(store, new CheckpointId("one-slice"), LoadOptions.defaults());
                TensorStream stream = checkpoint.stream(1, 2, columns)) {
            Map<String, Tensor> tensors = collect(stream, new HashMap<>());
            assertThat(tensors).containsOnlyKeys("pad", "w");
            assertThat(tensors.get("w").shape()).containsExactly(4L, 0L);
        }
    }

    /** Writes a file of F32 tensors "pad" ({@code padding} values) and "w" [4, 1]; returns its size. */
    private static long padThenColumns(Path file, long padding) throws IOException {
        List<TensorSpec> specs = List.of(new TensorSpec("pad", DType.F32, List.of(padding)), new TensorSpec("w", DType.F32, List.of(4L, 1L)));
        Map<String, byte[]> data = new LinkedHashMap<>();
        specs.forEach(spec -> data.put(spec.name(), new byte[(int) spec.byteSize()]));
        SafetensorsWriter.write(file, specs, Map.of(), data);
        return Files.size(file);
    }

    @Test
    void corruptSliceFailsTheLoadWithOneReplicaAndIsNeverYielded() throws IOException {
        importAs("one", 1);
        corrupt("one", "model-00001-of-");
        try (CheckpointSource checkpoint = open("one", 512L << 20); TensorStream stream = checkpoint.stream()) {
            assertThatThrownBy(() -> {
                while (stream.next() != null) {
                    // Every tensor before the corrupt batch may arrive; the corrupt one must not.
                }
            }).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .hasMessageContaining("checksum mismatch");
        }
    }

    @Test
    void corruptSliceIsReadFromTheOtherReplica() throws IOException {
        corrupt("ckpt", "model-00001-of-");
        try (CheckpointSource checkpoint = open("ckpt", 4L << 20); TensorStream stream = checkpoint.stream()) {
            Map<String, byte[]> got = new HashMap<>();
            collect(stream, got);
            for (String name : expected.keySet()) {
                assertThat(got.get(name)).as(name).isEqualTo(expected.get(name));
            }
        }
    }

    private void corrupt(String id, String filePrefix) throws IOException {
        Catalog catalog = new Catalog(store);
        Manifest manifest = catalog.readyManifest(new CheckpointId(id));
        var file = manifest.files().stream().filter(f -> f.path().startsWith(filePrefix)).findFirst().orElseThrow();
        cluster.flipByte(catalog.file(manifest, file).key(), 0, 200_000);
    }

    @Test
    void metadataIsMaterializedOnceAndWeightsNever() throws IOException {
        Path cache = tmp.resolve("cache");
        try (CheckpointSource checkpoint = CheckpointSource.open(store, new CheckpointId("ckpt"),
                LoadOptions.defaults().withCacheDir(cache))) {
            CheckpointSource.Materialized first = checkpoint.materializeMetadata();
            assertThat(first.written()).isEqualTo(5);
            assertThat(Files.readString(cache.resolve("config.json"))).isEqualTo(Files.readString(source.resolve("config.json")));
            try (var files = Files.list(cache)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".safetensors"));
            }
            CheckpointSource.Materialized second = checkpoint.materializeMetadata();
            assertThat(second.written()).isZero();
            assertThat(second.unchanged()).isEqualTo(5);
            Files.writeString(cache.resolve("config.json"), "{}");
            assertThat(checkpoint.materializeMetadata().written()).isEqualTo(1);
        }
    }

    @Test
    void theStoresOwnCacheKeepsNoFileThisVersionDoesNotHave() throws IOException {
        inHome(tmp.resolve("home"), () -> {
            try (CheckpointSource checkpoint = CheckpointSource.open(store, new CheckpointId("ckpt"), LoadOptions.defaults())) {
                CheckpointSource.Materialized first = checkpoint.materializeMetadata();
                assertThat(first.changed()).isTrue();
                Path cache = first.dir();
                // What a load of a version before left: a file this one does not have, and a write in progress.
                Path before = Files.writeString(cache.resolve("added_tokens.json"), "{\"<extra>\": 32000}");
                Path writing = Files.writeString(cache.resolve(".tokenizer.json.1.x.partial"), "half");

                CheckpointSource.Materialized again = checkpoint.materializeMetadata();
                assertThat(again.removed()).isEqualTo(1);
                assertThat(again.written()).isZero();
                assertThat(again.changed()).as("an engine that read the directory read another version's file").isTrue();
                assertThat(before).doesNotExist();
                assertThat(writing).exists();
                assertThat(checkpoint.materializeMetadata().changed()).isFalse();
            }
        });
    }

    @Test
    void loadsOfTwoVersionsWriteTheirMetadataToSetsOfTheirOwnAndNeitherRewritesTheOthers() throws IOException {
        Path versions = Files.createDirectories(tmp.resolve("versions"));
        try (var files = Files.list(source)) {
            for (Path file : files.toList()) {
                Files.copy(file, versions.resolve(file.getFileName()));
            }
        }
        CheckpointId id = new CheckpointId("versions");
        Catalog catalog = new Catalog(store);
        new CheckpointImporter(catalog).run(new ImportRequest(id, "org/m", "r1", versions, 1, false, 2), Progress.NONE);
        inHome(tmp.resolve("home"), () -> {
            assertThat(CheckpointSource.metadataLeftBefore(id, LoadOptions.defaults())).as("no load here yet").isEmpty();
            try (CheckpointSource before = CheckpointSource.open(store, id, LoadOptions.defaults())) {
                Path first = before.materializeMetadata().dir();
                assertThat(CheckpointSource.metadataLeftBefore(id, LoadOptions.defaults())).contains(first);

                Path config = versions.resolve("config.json");
                Files.writeString(config, Files.readString(config).replaceFirst("\\{", "{\"revision\": \"r2\", "));
                new CheckpointImporter(catalog).run(new ImportRequest(id, "org/m", "r2", versions, 1, true, 2), Progress.NONE);
                try (CheckpointSource after = CheckpointSource.open(store, id, LoadOptions.defaults())) {
                    Path second = after.materializeMetadata().dir();

                    assertThat(second).isNotEqualTo(first).hasParent(first.getParent());
                    assertThat(second.resolve("config.json")).hasSameBinaryContentAs(config);
                    assertThat(first.resolve("config.json")).as("the set an engine loading the version before may be reading")
                            .hasSameBinaryContentAs(source.resolve("config.json"));
                    assertThat(CheckpointSource.metadataLeftBefore(id, LoadOptions.defaults())).as("the set written last").contains(second);
                }
            }
        });
    }

    @Test
    void aCheckpointOfWeightsAloneMaterializesAnEmptyDirectoryInTheStoresOwnCache() throws IOException {
        Path weightsOnly = Files.createDirectories(tmp.resolve("weights-only"));
        Files.copy(source.resolve("extra.safetensors"), weightsOnly.resolve("extra.safetensors"));
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("bare"), "org/m", "main", weightsOnly, 1,
                false, 1), Progress.NONE);
        inHome(tmp.resolve("home"), () -> {
            try (CheckpointSource checkpoint = CheckpointSource.open(store, new CheckpointId("bare"), LoadOptions.defaults())) {
                CheckpointSource.Materialized materialized = checkpoint.materializeMetadata();
                assertThat(materialized.changed()).isFalse();
                assertThat(materialized.dir()).isEmptyDirectory();
            }
        });
    }

    /** Runs {@code action} with {@code home} as the weightstore home, where the store's own metadata cache lies. */
    private static void inHome(Path home, IoAction action) throws IOException {
        String previous = System.getProperty(WeightstoreHome.PROPERTY);
        System.setProperty(WeightstoreHome.PROPERTY, home.toString());
        try {
            action.run();
        } finally {
            if (previous == null) {
                System.clearProperty(WeightstoreHome.PROPERTY);
            } else {
                System.setProperty(WeightstoreHome.PROPERTY, previous);
            }
        }
    }

    @FunctionalInterface
    private interface IoAction {
        void run() throws IOException;
    }

    @Test
    void metadataWrittenFirstIsToldOnceAndNotWrittenForACheckpointTheLoadRefuses() throws IOException {
        Path cache = tmp.resolve("cache");
        LoadOptions options = LoadOptions.defaults().withStore(cluster.masterAddress()).withCacheDir(cache);
        List<CheckpointSource.Materialized> told = new ArrayList<>();
        try (CheckpointSource checkpoint = CheckpointSource.openMetadataFirst(URI.create("weightstore://ckpt"), options, told::add)) {
            assertThat(told).singleElement().satisfies(materialized -> {
                assertThat(materialized.dir()).isEqualTo(cache.toAbsolutePath());
                assertThat(materialized.written()).isEqualTo(5);
            });
            assertThat(cache.resolve("config.json")).hasSameBinaryContentAs(source.resolve("config.json"));
            assertThat(checkpoint.materializeMetadata().unchanged()).isEqualTo(5);
        }

        Path refused = tmp.resolve("refused");
        assertThatThrownBy(() -> CheckpointSource.openMetadataFirst(URI.create("weightstore://ckpt"),
                options.withCacheDir(refused).withImporter("writer someone-else"), told::add))
                .isInstanceOfSatisfying(CheckpointException.class, e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.UNTRUSTED));
        assertThat(refused).doesNotExist();
        assertThat(told).hasSize(1);
    }

    @Test
    void aManifestThatRecordsNoTensorCountForAWeightFileIsCorruptNotACrash() throws IOException {
        Manifest manifest = new Catalog(store).readyManifest(new CheckpointId("ckpt"));
        ManifestFile weights = manifest.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        ManifestFile uncounted = new ManifestFile(weights.path(), weights.size(), weights.sha256(), weights.kind(),
                weights.headerLength(), null, weights.checksumDigest(), weights.tensorCrcsSha256(), weights.version(), List.of());
        store.put("weights/ckpt/manifest", manifest.withFile(uncounted, Instant.now()).toJson(), PutOptions.defaults().withReplace(true));
        assertThatThrownBy(() -> open("ckpt", 1 << 20)).asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.CORRUPT))
                .hasMessageContaining("stored header of " + weights.path() + " does not match the manifest");
    }

    @Test
    void onlyReadyCheckpointsOpenAndOnlyWeightstoreUris() throws IOException {
        Catalog catalog = new Catalog(store);
        var manifest = catalog.readyManifest(new CheckpointId("ckpt"));
        store.put("weights/ckpt/manifest", manifest.withStatus(CheckpointStatus.DELETING, Instant.now(), null).toJson(),
                PutOptions.defaults().withReplace(true));
        assertThatThrownBy(() -> open("ckpt", 1 << 20)).asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NOT_READY)).hasMessageContaining("DELETING");
        assertThatThrownBy(() -> open("nope", 1 << 20)).hasMessageContaining("no checkpoint nope");
        for (String uri : List.of("http://ckpt", "weightstore://ckpt/extra", "weightstore:///ckpt", "weightstore://../x")) {
            assertThatThrownBy(() -> CheckpointSource.checkpointId(URI.create(uri))).isInstanceOf(CheckpointException.class);
        }
        assertThat(CheckpointSource.checkpointId(URI.create("weightstore://ckpt"))).isEqualTo(new CheckpointId("ckpt"));
    }
}
