package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.DType;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsWriter;
import io.weightstore.format.TensorInfo;
import io.weightstore.format.TensorSpec;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.Awaits;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.FilesVerified;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.LoadReport;
import io.weightstore.weights.loader.ShardPlan;
import io.weightstore.weights.loader.Split;
import io.weightstore.weights.testing.Tampering;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Column layouts ({@code model import --tp-layout}): a tensor-parallel load reads each column shard as one range of its
 * file's layout and gets the bytes a strided read of the file gives; a layout that is not as the import stored it is
 * caught (by the client's shard CRC, the metadata check, verify and the listing); a delete, and a replace that asks for
 * other layouts, leave none behind.
 */
class ColumnLayoutTest {
    private static final ShardPlan LLAMA = ShardPlan.preset("llama");
    private static final CheckpointId ID = new CheckpointId("ckpt");
    private static final String O_PROJ = "model.layers.1.self_attn.o_proj.weight";

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient store;
    private Catalog catalog;
    private Path source;

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        store = cluster.client();
        catalog = new Catalog(store);
        source = tmp.resolve("source");
        // Two layers in files of 1 MiB at most, so that layouts span slices and several files.
        SyntheticCheckpoint.write(new SynthSpec(SynthSpec.LLAMA, 256, 2, 4, 2, 512, 1000, DType.BF16, 1 << 20, 7), source, b -> {});
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    private ImportResult importWith(List<Integer> worldSizes, boolean replace) throws IOException {
        return new CheckpointImporter(catalog).run(new ImportRequest(ID, "org/m", "main", source, 2, replace, 2)
                .withColumnLayouts(new ColumnLayoutPlan(worldSizes, LLAMA)), Progress.NONE);
    }

    /** What rank {@code rank} of {@code worldSize} receives, by tensor name, and the load's report. */
    private Map<String, byte[]> load(int rank, int worldSize, boolean columnLayouts, LoadReport[] report) throws IOException {
        return load(rank, worldSize, columnLayouts, report, new LinkedHashMap<>());
    }

    private Map<String, byte[]> load(int rank, int worldSize, boolean columnLayouts, LoadReport[] report, Map<String, byte[]> received)
            throws IOException {
        try (CheckpointSource checkpoint = CheckpointSource.open(store, ID, LoadOptions.defaults().withBuffer(1 << 20)
                .withColumnLayouts(columnLayouts))) {
            report[0] = checkpoint.load(rank, worldSize, LLAMA, t -> received.put(t.name(), t.data().toArray(ValueLayout.JAVA_BYTE)),
                    Progress.NONE);
        }
        return received;
    }

    private Map<String, byte[]> load(int rank, int worldSize, boolean columnLayouts) throws IOException {
        return load(rank, worldSize, columnLayouts, new LoadReport[1]);
    }

    /** Rank {@code rank} of {@code worldSize}'s columns of the source's tensor {@code name}: its piece of every row, in row order. */
    private byte[] columnsFromSource(String name, int rank, int worldSize) throws IOException {
        Tampering.Place place = Tampering.place(source, name);
        byte[] file = Files.readAllBytes(source.resolve(place.file()));
        long rows = place.info().shape().getFirst();
        int rowBytes = (int) (place.info().byteSize() / rows);
        int piece = rowBytes / worldSize;
        byte[] shard = new byte[(int) (rows * piece)];
        for (int row = 0; row < rows; row++) {
            System.arraycopy(file, (int) place.offset() + row * rowBytes + rank * piece, shard, row * piece, piece);
        }
        return shard;
    }

    private List<ManifestFile> laidOut() throws IOException {
        return catalog.readyManifest(ID).files().stream().filter(f -> !f.columnLayouts().isEmpty()).toList();
    }

    private StoredFile storedFileOf(String tensor) throws IOException {
        Manifest manifest = catalog.readyManifest(ID);
        String path = Tampering.place(source, tensor).file();
        return catalog.file(manifest, manifest.file(path).orElseThrow());
    }

    private List<String> keys() throws IOException {
        return store.list("weights/").stream().map(ObjectMeta::key).toList();
    }

    @Test
    void eachRanksColumnShardsComeFromTheLayoutForItsWorldSizeAsTheStridedReadGivesThem() throws IOException {
        ImportResult imported = importWith(List.of(2, 4), false);
        assertThat(imported.uploadedBytes()).as("the files and their layouts").isEqualTo(CheckpointDirectory.read(source).totalBytes()
                + laidOut().stream().flatMap(f -> f.columnLayouts().stream()).mapToLong(ColumnLayout::size).sum());
        assertThat(laidOut()).isNotEmpty().allSatisfy(f -> assertThat(f.columnLayouts()).extracting(ColumnLayout::worldSize)
                .containsExactly(2, 4));
        int columnSplit = 0;
        for (ManifestFile file : laidOut()) {
            columnSplit += file.columnLayout(4).orElseThrow().tensors().size();
            assertThat(file.columnLayout(4).orElseThrow().tensors()).allSatisfy(t -> assertThat(LLAMA.split(t)).isEqualTo(Split.DIM1));
        }
        assertThat(columnSplit).as("o_proj and down_proj of two layers").isEqualTo(4);
        for (int worldSize : List.of(2, 4)) {
            for (int rank = 0; rank < worldSize; rank++) {
                LoadReport[] fromLayouts = new LoadReport[1];
                LoadReport[] strided = new LoadReport[1];
                Map<String, byte[]> laid = load(rank, worldSize, true, fromLayouts);
                Map<String, byte[]> plain = load(rank, worldSize, false, strided);
                assertThat(laid.keySet()).as("the same tensors, in the same order").containsExactlyElementsOf(plain.keySet());
                for (String name : plain.keySet()) {
                    assertThat(laid.get(name)).as("%s, rank %d of %d", name, rank, worldSize).isEqualTo(plain.get(name));
                }
                assertThat(laid.get(O_PROJ)).isEqualTo(columnsFromSource(O_PROJ, rank, worldSize));
                assertThat(fromLayouts[0].fromColumnLayouts()).isEqualTo(columnSplit);
                assertThat(fromLayouts[0].clientChecked()).as("every shard checked by the client").isEqualTo(fromLayouts[0].tensors());
                assertThat(fromLayouts[0].bytesRead()).isEqualTo(strided[0].bytesRead());
                assertThat(strided[0].fromColumnLayouts()).isZero();
            }
        }
        LoadReport[] eight = new LoadReport[1];
        load(0, 8, true, eight);
        assertThat(eight[0].fromColumnLayouts()).as("no layout was written for 8 ranks").isZero();
    }

    @Test
    void aLayoutRottenOnEveryCopyIsGivenUpForTheFilesStridedReadAndFailsVerify() throws Exception {
        StoredFile file = importedWithRank1sShardXored(3, new byte[] {(byte) 0xFF});
        LoadReport[] report = new LoadReport[1];
        Map<String, byte[]> received = load(1, 4, true, report);
        assertThat(received.get(O_PROJ)).as("read strided from the file instead").isEqualTo(columnsFromSource(O_PROJ, 1, 4));
        assertThat(received).as("every tensor, right").containsExactlyEntriesOf(load(1, 4, false));
        assertThat(report[0].fromColumnLayouts()).as("shards read from layouts before the rotten one's batch, none after")
                .isLessThan(4);

        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog).run(ID, CheckpointVerifier.Mode.FULL, Progress.NONE);
        assertThat(verified.files()).filteredOn(v -> v.path().equals(file.path())).singleElement()
                .satisfies(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT))
                .satisfies(v -> assertThat(v.detail()).contains("sha256 " + file.file().sha256(), "column layout for 4 ranks"));
    }

    /** Files with a copy on every node but one, a layout whose only copy of a slice is there: the load reads the files. */
    @Test
    void aLayoutWithEveryCopyOutOfReachIsGivenUpByLoadVerifyForTheFilesItJustVerified() throws Exception {
        importWith(List.of(4), false);
        StoredFile file = storedFileOf(O_PROJ);
        String layoutKey = file.columnsKey(file.file().columnLayout(4).orElseThrow());
        store.setReplicas(List.of(layoutKey), 1, false);
        Awaits.until(Duration.ofSeconds(30), "the layout's slices down to one copy each",
                () -> store.stat(layoutKey).slices().stream().allMatch(slice -> slice.replicas().size() == 1));
        cluster.stopNode(cluster.indexOf(store.stat(layoutKey).slice(0).nodeIds().getFirst()));

        LoadReport[] report = new LoadReport[1];
        Map<String, byte[]> received = new LinkedHashMap<>();
        try (CheckpointSource checkpoint = CheckpointSource.open(store, ID, LoadOptions.defaults().withBuffer(1 << 20))) {
            FilesVerified verified = checkpoint.verifyFiles(4, Progress.NONE);
            assertThat(verified.columnLayouts()).as("every layout but the one out of reach").isEqualTo(laidOut().size() - 1);
            report[0] = checkpoint.load(1, 4, LLAMA, t -> received.put(t.name(), t.data().toArray(ValueLayout.JAVA_BYTE)),
                    Progress.NONE);
        }
        assertThat(received.get(O_PROJ)).isEqualTo(columnsFromSource(O_PROJ, 1, 4));
    }

    /** A node forging a layout's bytes with every CRC kept: what only SHA-256 sees, which {@code load --verify} then checks. */
    @Test
    void bytesForgedInALayoutWithEveryCrcKeptAreCaughtByLoadVerifyWhichReadsTheFileInstead() throws Exception {
        StoredFile file = importedWithRank1sShardXored(16, Tampering.CRC_PRESERVING);
        ColumnLayout layout = file.file().columnLayout(4).orElseThrow();
        assertThat(load(1, 4, true).get(O_PROJ)).as("every CRC passes: forged bytes reach a load that does not verify")
                .isNotEqualTo(columnsFromSource(O_PROJ, 1, 4));

        LoadReport[] report = new LoadReport[1];
        Map<String, byte[]> received = new LinkedHashMap<>();
        try (CheckpointSource checkpoint = CheckpointSource.open(store, ID, LoadOptions.defaults().withBuffer(1 << 20))) {
            FilesVerified verified = checkpoint.verifyFiles(4, Progress.NONE);
            assertThat(verified.files()).isEqualTo(catalog.readyManifest(ID).files().size());
            assertThat(verified.columnLayouts()).as("every layout but the forged one").isEqualTo(laidOut().size() - 1);
            report[0] = checkpoint.load(1, 4, LLAMA, t -> received.put(t.name(), t.data().toArray(ValueLayout.JAVA_BYTE)),
                    Progress.NONE);
        }
        assertThat(received.get(O_PROJ)).isEqualTo(columnsFromSource(O_PROJ, 1, 4));
        assertThat(report[0].fromColumnLayouts()).isEqualTo(4 - layout.tensors().size());
    }

    /**
     * Imports with a layout for 4 ranks and XORs {@code mask} into both copies of it, {@code at} bytes into rank 1's shard of
     * {@link #O_PROJ}; returns that tensor's file.
     */
    private StoredFile importedWithRank1sShardXored(long at, byte[] mask) throws IOException {
        importWith(List.of(4), false);
        StoredFile file = storedFileOf(O_PROJ);
        ColumnLayout layout = file.file().columnLayout(4).orElseThrow();
        long rank1 = layout.rankBytes() + layout.shardOffsets(headerOf(file), file.path()).get(O_PROJ);
        for (int replica = 0; replica < 2; replica++) {
            cluster.xorBytes(file.columnsKey(layout), 0, replica, rank1 + at, mask);
        }
        return file;
    }

    private SafetensorsHeader headerOf(StoredFile file) throws IOException {
        return CheckpointDirectory.read(source).files().stream().filter(f -> f.path().equals(file.path()))
                .findFirst().orElseThrow().header().orElseThrow();
    }

    @Test
    void aLayoutReplacedSinceTheImportIsReadNeitherByALoadNorPassedByVerifyOrTheListing() throws Exception {
        importWith(List.of(4), false);
        StoredFile file = storedFileOf(O_PROJ);
        ColumnLayout layout = file.file().columnLayout(4).orElseThrow();
        store.put(file.columnsKey(layout), new byte[(int) layout.size()], PutOptions.defaults().withReplace(true).withPin(true));

        LoadReport[] report = new LoadReport[1];
        Map<String, byte[]> received = load(2, 4, true, report);
        assertThat(received.get(O_PROJ)).as("read strided from the file instead").isEqualTo(columnsFromSource(O_PROJ, 2, 4));
        assertThat(report[0].fromColumnLayouts()).isEqualTo(4 - layout.tensors().size());

        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog).run(ID, CheckpointVerifier.Mode.QUICK, Progress.NONE);
        assertThat(verified.files()).filteredOn(v -> v.path().equals(file.path())).singleElement()
                .satisfies(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT))
                .satisfies(v -> assertThat(v.detail()).contains("the column layout for 4 ranks of " + file.path(),
                        "other bytes than the import stored"));
        assertThat(catalog.list()).singleElement().satisfies(listed -> assertThat(listed.problems()).anySatisfy(p -> assertThat(p)
                .contains("the column layout for 4 ranks of " + file.path())));

        store.remove(file.columnsKey(layout), true);
        assertThat(load(2, 4, true).get(O_PROJ)).isEqualTo(columnsFromSource(O_PROJ, 2, 4));
        assertThat(new CheckpointVerifier(catalog).run(ID, CheckpointVerifier.Mode.QUICK, Progress.NONE).files())
                .filteredOn(v -> v.path().equals(file.path())).singleElement()
                .satisfies(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.MISSING));
        assertThat(catalog.list()).singleElement().satisfies(listed -> assertThat(listed.problems()).anySatisfy(p -> assertThat(p)
                .contains("the column layout for 4 ranks of " + file.path() + " is missing")));
    }

    @Test
    void aReplaceKeepsTheLayoutsItAsksForAgainAndRemovesTheOthersWithTheVersionBefore() throws Exception {
        importWith(List.of(2, 4), false);
        List<String> first = keys().stream().filter(k -> k.contains("/columns/")).toList();
        assertThat(first).isNotEmpty().allSatisfy(k -> assertThat(k).startsWith("weights/ckpt/columns/"));

        ImportResult same = importWith(List.of(2, 4), true);
        assertThat(same.uploadedFiles()).as("nothing changed").isZero();
        assertThat(same.uploadedBytes()).as("no layout written again").isZero();
        assertThat(keys().stream().filter(k -> k.contains("/columns/")).toList()).as("kept, not written again")
                .containsExactlyInAnyOrderElementsOf(first);

        importWith(List.of(4), true);
        assertThat(keys().stream().filter(k -> k.contains("/columns/")).toList()).as("the layouts for 2 ranks removed")
                .isNotEmpty().allSatisfy(k -> assertThat(k).startsWith("weights/ckpt/columns/4/"));
        assertThat(laidOut()).allSatisfy(f -> assertThat(f.columnLayouts()).extracting(ColumnLayout::worldSize).containsExactly(4));

        importWith(List.of(), true);
        assertThat(keys()).noneMatch(k -> k.contains("/columns/"));
        assertThat(laidOut()).isEmpty();
        assertThat(load(3, 4, true).get(O_PROJ)).isEqualTo(columnsFromSource(O_PROJ, 3, 4));
    }

    /** A file a replace writes again (it changed size) gets its layouts written again: the room check counts them. */
    @Test
    void aReplaceAsksForRoomForTheLayoutsOfTheFilesItWritesAgain() throws Exception {
        try (TestCluster small = new TestCluster(tmp.resolve("small"), 1)) {
            StoreClient client = small.client();
            ImportRequest request = new ImportRequest(ID, "org/m", "main", source, 1, false, 2)
                    .withColumnLayouts(new ColumnLayoutPlan(List.of(4), LLAMA));
            new CheckpointImporter(new Catalog(client)).run(request, Progress.NONE);
            // The same tensors with one more metadata entry: a few bytes longer, so not kept.
            String path = Tampering.place(source, O_PROJ).file();
            CheckpointFile grown = CheckpointDirectory.read(source).files().stream().filter(f -> f.path().equals(path)).findFirst()
                    .orElseThrow();
            SafetensorsHeader header = grown.header().orElseThrow();
            byte[] bytes = Files.readAllBytes(grown.location());
            Map<String, byte[]> data = new LinkedHashMap<>();
            for (TensorInfo t : header.tensors()) {
                data.put(t.name(), Arrays.copyOfRange(bytes, (int) (header.dataStart() + t.begin()), (int) (header.dataStart() + t.end())));
            }
            Map<String, String> metadata = new LinkedHashMap<>(header.metadata());
            metadata.put("note", "retrained");
            SafetensorsHeader written = SafetensorsWriter.write(grown.location(), header.tensors().stream()
                    .map(t -> new TensorSpec(t.name(), t.dtype(), t.shape())).toList(), metadata, data);
            long file = Math.ceilDiv(written.fileLength(), 4096) * 4096;
            long layout = Math.ceilDiv(request.columnLayouts().mostBytes(written), 4096) * 4096;
            // Room for the file written again and all but a page of its layout.
            client.put("filler", new byte[(int) (client.room().available() - file - layout + 4096)], PutOptions.defaults().withPin(true));

            ImportRequest replace = new ImportRequest(ID, "org/m", "main", source, 1, true, 2).withColumnLayouts(request.columnLayouts());
            assertThatThrownBy(() -> new CheckpointImporter(new Catalog(client)).run(replace, Progress.NONE))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NO_SPACE))
                    .hasMessageContaining("nothing was written");
        }
    }

    @Test
    void anImportsProgressCountsItsLayoutsAndEndsAtItsTotal() throws Exception {
        List<Long> totals = new ArrayList<>();
        AtomicLong advanced = new AtomicLong();
        Progress progress = new Progress() {
            @Override
            public void advanced(long bytes) {
                advanced.addAndGet(bytes);
            }

            @Override
            public synchronized void started(long totalBytes) {
                totals.add(totalBytes);
            }
        };
        ColumnLayoutPlan plan = new ColumnLayoutPlan(List.of(2, 4), LLAMA);
        new CheckpointImporter(catalog).run(new ImportRequest(ID, "org/m", "main", source, 2, false, 2).withColumnLayouts(plan), progress);
        CheckpointDirectory directory = CheckpointDirectory.read(source);
        long layouts = directory.files().stream().flatMap(f -> f.header().stream()).mapToLong(h -> 2 * plan.mostBytes(h)).sum();
        assertThat(layouts).isPositive();
        assertThat(totals).containsExactly(directory.totalBytes() + layouts);
        assertThat(advanced).hasValue(directory.totalBytes() + layouts);
    }

    @Test
    void theLayoutsKeepTheCopyCountOfTheirFiles() throws Exception {
        importWith(List.of(4), false);
        new CheckpointReplicator(catalog).run(ID, Optional.of(3), false);
        StoredFile file = storedFileOf(O_PROJ);
        assertThat(store.find(file.columnsKey(file.file().columnLayout(4).orElseThrow())).orElseThrow().replicas()).isEqualTo(3);
    }

    @Test
    void aDeleteRemovesTheLayoutsWithTheFiles() throws Exception {
        importWith(List.of(8), false);
        assertThat(keys()).anyMatch(k -> k.startsWith("weights/ckpt/columns/8/"));
        new CheckpointRemover(catalog).run(ID, false);
        assertThat(keys()).isEmpty();
    }

    @Test
    void anImportAsksForRoomForItsLayoutsBeforeItWritesAnything() throws Exception {
        long files = CheckpointDirectory.read(source).totalBytes();
        try (TestCluster small = new TestCluster(tmp.resolve("small"), 1)) {
            StoreClient client = small.client();
            // Room for the files and a MiB more, less than the layouts for 2, 4 and 8 ranks take.
            client.put("filler", new byte[(int) (TestCluster.NODE_CAPACITY - files - (1 << 20)) & -4096], PutOptions.defaults()
                    .withPin(true));
            ImportRequest request = new ImportRequest(ID, "org/m", "main", source, 1, false, 2);
            assertThatThrownBy(() -> new CheckpointImporter(new Catalog(client)).run(request.withColumnLayouts(
                    new ColumnLayoutPlan(List.of(2, 4, 8), LLAMA)), Progress.NONE))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NO_SPACE))
                    .hasMessageContaining("nothing was written");
            assertThat(client.list("weights/")).isEmpty();
            new CheckpointImporter(new Catalog(client)).run(request, Progress.NONE);

            // Layouts added by a replace of files it keeps need the room too.
            ImportRequest replace = new ImportRequest(ID, "org/m", "main", source, 1, true, 2);
            assertThatThrownBy(() -> new CheckpointImporter(new Catalog(client)).run(replace.withColumnLayouts(
                    new ColumnLayoutPlan(List.of(2, 4, 8), LLAMA)), Progress.NONE))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.NO_SPACE));
            assertThat(client.list("weights/")).noneMatch(o -> o.key().contains("/columns/"));
        }
    }
}
