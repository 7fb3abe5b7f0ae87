package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.ReplyTamperer;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.security.Role;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.LoadReport;
import io.weightstore.weights.loader.ShardPlan;
import io.weightstore.weights.testing.Tampering;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of issue 13 on real stores, and what catches each: a file replaced by another writer
 * or by the importer itself (its metadata no longer matches the manifest: refused before a byte is
 * read), a proxy that zeroes column-shard replies (the client's shard CRCs), and bytes changed so
 * that every CRC32C still matches (only SHA-256, {@code load --verify}, sees them).
 */
class TamperedCheckpointTest {
    private static final String O_PROJ = "model.layers.0.self_attn.o_proj.weight";

    @TempDir
    Path tmp;

    private Path source;

    @BeforeEach
    void synthesize() throws IOException {
        source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 5), source, b -> {});
    }

    private static ClientOptions as(TestCluster cluster, Role role, String name) throws Exception {
        return ClientOptions.defaults().withSameHostPath(false).withAuthentication(cluster.authentication(role, name));
    }

    private void importInto(StoreClient store, String id) throws IOException {
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(CheckpointId.of(id), "org/tiny", "main", source, 1, false, 2),
                Progress.NONE);
    }

    /** Loads rank {@code rank} of {@code worldSize}, and keeps every tensor it received, by name. */
    private static List<String> load(StoreClient store, String id, int rank, int worldSize, LoadOptions options, List<byte[]> received)
            throws IOException {
        List<String> names = new ArrayList<>();
        try (CheckpointSource checkpoint = CheckpointSource.open(store, CheckpointId.of(id), options)) {
            checkpoint.load(rank, worldSize, ShardPlan.preset("llama"), tensor -> {
                names.add(tensor.name());
                received.add(tensor.data().toArray(ValueLayout.JAVA_BYTE));
            }, Progress.NONE);
        }
        return names;
    }

    private static void assertCorrupt(ThrowingAction action, String... message) {
        assertThatThrownBy(action::run).asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                .satisfies(e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(CheckpointException.Code.CORRUPT))
                .hasMessageContainingAll(message);
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }

    /** The attack: another writer puts a valid safetensors file with 4 KiB changed over a weight file. */
    @Test
    void aWeightFileReplacedByAnotherWriterIsRefusedByLoadVerifyAndList() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 2)) {
            importInto(cluster.client(as(cluster, Role.WRITER, "importer")), "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            Path tampered = Tampering.xored(source.resolve(place.file()), place.offset(), Tampering.inverting(4096),
                    tmp.resolve("tampered.safetensors"));
            String key = "weights/tiny/files/" + place.file();
            cluster.client(as(cluster, Role.WRITER, "mallory")).put(key, tampered, PutOptions.defaults().withReplace(true).withPin(true),
                    Progress.NONE);

            StoreClient engine = cluster.client(as(cluster, Role.READER, "engine"));
            List<byte[]> received = new ArrayList<>();
            assertCorrupt(() -> load(engine, "tiny", 0, 1, LoadOptions.defaults(), received), "stored " + place.file() + " of tiny",
                    "was written by writer mallory, not by writer importer, who imported the checkpoint");
            assertThat(received).as("no tensor reached the consumer").isEmpty();

            Catalog catalog = new Catalog(engine);
            // A repair rewrites copies from good ones; it cannot make a replaced file the importer's again.
            Catalog admin = new Catalog(cluster.client(as(cluster, Role.ADMIN, "admin")));
            for (CheckpointVerifier.Mode mode : CheckpointVerifier.Mode.values()) {
                assertThat(new CheckpointVerifier(mode == CheckpointVerifier.Mode.REPAIR ? admin : catalog)
                        .run(CheckpointId.of("tiny"), mode, Progress.NONE).files())
                        .as(mode.toString()).filteredOn(v -> v.path().equals(place.file())).singleElement().satisfies(v -> {
                            assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT);
                            assertThat(v.detail()).contains("written by writer mallory");
                        });
            }
            assertThat(catalog.list()).singleElement().satisfies(listed -> {
                assertThat(listed.manifest().status()).isEqualTo(CheckpointStatus.READY);
                assertThat(listed.manifest().importedBy()).isEqualTo("writer importer");
                assertThat(listed.problems()).singleElement().asString().contains(place.file(), "writer mallory");
            });
        }
    }

    /** Whoever writes the manifest is who the manifest may name; an engine may insist on one importer. */
    @Test
    void aManifestNamesOnlyItsWriterAndAnEngineMayTrustOneImporterOnly() throws Exception {
        try (TestCluster cluster = TestCluster.secure(tmp.resolve("cluster"), 1)) {
            importInto(cluster.client(as(cluster, Role.WRITER, "importer")), "tiny");
            StoreClient mallory = cluster.client(as(cluster, Role.WRITER, "mallory"));
            StoreClient engine = cluster.client(as(cluster, Role.READER, "engine"));
            LoadOptions trusting = LoadOptions.defaults().withImporter("writer importer");
            assertThat(load(engine, "tiny", 0, 1, trusting, new ArrayList<>())).isNotEmpty();

            Manifest manifest = new Catalog(engine).readyManifest(CheckpointId.of("tiny"));
            mallory.put("weights/tiny/manifest", manifest.toJson(), PutOptions.defaults().withReplace(true).withPin(true));
            assertCorrupt(() -> new Catalog(engine).readyManifest(CheckpointId.of("tiny")),
                    "manifest of tiny says it was imported by writer importer, but the master says writer mallory wrote it");

            new CheckpointImporter(new Catalog(mallory)).run(new ImportRequest(CheckpointId.of("tiny"), "org/tiny", "main", source, 1,
                    true, 2), Progress.NONE);
            assertThat(new Catalog(engine).readyManifest(CheckpointId.of("tiny")).importedBy()).isEqualTo("writer mallory");
            assertThatThrownBy(() -> load(engine, "tiny", 0, 1, trusting, new ArrayList<>()))
                    .asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(CheckpointException.Code.UNTRUSTED))
                    .hasMessageContaining("checkpoint tiny was imported by writer mallory, not by writer importer");
        }
    }

    /** The importer itself (or anyone on a store without identities) putting other bytes: the checksum digest differs. */
    @Test
    void aWeightFileReplacedByTheSameWriterIsRefused() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            store.put("weights/tiny/files/" + place.file(), Tampering.xored(source.resolve(place.file()), place.offset() + 10,
                    new byte[] {1}, tmp.resolve("one-bit.safetensors")), PutOptions.defaults().withReplace(true).withPin(true),
                    Progress.NONE);
            assertCorrupt(() -> load(store, "tiny", 0, 1, LoadOptions.defaults(), new ArrayList<>()), place.file(),
                    "has other bytes than the import stored: the digest of its block checksums is");
            assertThat(new CheckpointVerifier(new Catalog(store)).run(CheckpointId.of("tiny"), CheckpointVerifier.Mode.QUICK, Progress.NONE).files())
                    .filteredOn(v -> v.status() != FileVerdict.Status.OK).singleElement()
                    .satisfies(v -> assertThat(v.detail()).contains("other bytes than the import stored"));
        }
    }

    /** The CRC tables are pinned by the manifest too: one rewritten to match tampered bytes is refused. */
    @Test
    void aRewrittenCrcTableIsRefused() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            String table = "weights/tiny/checks/" + place.file();
            byte[] json = store.readAll(table);
            json[json.length / 2] = (byte) (json[json.length / 2] == '0' ? '1' : '0');
            store.put(table, json, PutOptions.defaults().withReplace(true).withPin(true));
            assertCorrupt(() -> load(store, "tiny", 0, 2, LoadOptions.defaults(), new ArrayList<>()),
                    "the tensor CRC table of " + place.file() + " of tiny has sha256", "the manifest recorded");
            assertThat(new CheckpointVerifier(new Catalog(store)).run(CheckpointId.of("tiny"), CheckpointVerifier.Mode.QUICK, Progress.NONE).files())
                    .filteredOn(v -> v.path().equals(place.file())).singleElement()
                    .satisfies(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT));
        }
    }

    @Test
    void aCrcTableLargerThanAnyTableIsRefusedUnread() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            String table = "weights/tiny/checks/" + place.file();
            store.put(table, new byte[(int) StoredFile.MAX_TABLE_BYTES + 1], PutOptions.defaults().withReplace(true).withPin(true));
            assertCorrupt(() -> load(store, "tiny", 0, 2, LoadOptions.defaults(), new ArrayList<>()),
                    "the tensor CRC table of " + place.file() + " of tiny (" + table + ") has " + (StoredFile.MAX_TABLE_BYTES + 1)
                            + " bytes, more than any table");
        }
    }

    /** The tables are read together with every file's header, their leases taken in one call: one gone is still named. */
    @Test
    void aMissingCrcTableIsCorruptAndTheLoadHoldsNoLease() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            store.remove("weights/tiny/checks/" + place.file(), true);
            List<byte[]> received = new ArrayList<>();
            assertCorrupt(() -> load(store, "tiny", 0, 1, LoadOptions.defaults(), received), "the tensor CRC table of " + place.file()
                    + " of tiny (weights/tiny/checks/" + place.file() + ") is missing, though the manifest records it");
            assertThat(received).isEmpty();
            // Removable without force: the failed open left no lease on the files it had opened.
            store.remove("weights/tiny/files/" + place.file(), false);
        }
    }

    /** The header is read at the length the manifest records; a header of another length is still caught. */
    @Test
    void aManifestRecordingAnotherHeaderLengthIsRefused() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Manifest manifest = new Catalog(store).readyManifest(CheckpointId.of("tiny"));
            ManifestFile weights = manifest.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
            for (long delta : new long[] {-8, 8}) {
                String json = new String(manifest.toJson(), StandardCharsets.UTF_8).replace("\"headerLength\" : " + weights.headerLength() + ",",
                        "\"headerLength\" : " + (weights.headerLength() + delta) + ",");
                assertThat(json).as("the manifest as rewritten").contains("\"headerLength\" : " + (weights.headerLength() + delta) + ",");
                store.put("weights/tiny/manifest", json.getBytes(StandardCharsets.UTF_8), PutOptions.defaults().withReplace(true).withPin(true));
                assertCorrupt(() -> load(store, "tiny", 0, 1, LoadOptions.defaults(), new ArrayList<>()),
                        "stored header of " + weights.path() + " does not match the manifest");
            }
        }
    }

    /** The second attack: a proxy between the client and a node zeroes every column-shard reply. */
    @Test
    void columnShardsZeroedOnTheWayAreCaughtByTheClient() throws Exception {
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 1);
                ReplyTamperer proxy = ReplyTamperer.zeroingStridedReplies(new InetSocketAddress("127.0.0.1", cluster.node(0).port()))) {
            importInto(cluster.client(), "tiny");
            cluster.advertise(0, proxy.port());
            StoreClient engine = cluster.client();

            // Without the client's checks the zeroed shards go through: what the issue saw.
            List<byte[]> unchecked = new ArrayList<>();
            List<String> names = load(engine, "tiny", 1, 2, LoadOptions.defaults().withTensorChecks(false), unchecked);
            assertThat(proxy.tamperedReplies()).isPositive();
            byte[] oProj = unchecked.get(names.indexOf(O_PROJ));
            assertThat(oProj).containsOnly(0);

            List<byte[]> checked = new ArrayList<>();
            assertCorrupt(() -> load(engine, "tiny", 1, 2, LoadOptions.defaults(), checked), "tensor " + O_PROJ,
                    "rank 1 of 2's columns", "the import recorded");
        }
    }

    /**
     * A header is part of its file's first checksum block, which a read of the header alone leaves to the node to check: a
     * proxy that renames a tensor on the way (o_proj to o_prok, the header's length kept) gave the engine a tensor the CRC
     * table does not name, so unchecked. The client checks the header against the CRC the table records.
     */
    @Test
    void aHeaderChangedOnTheWayIsCaughtByTheClientAgainstTheCrcItsTableRecords() throws Exception {
        Tampering.Place place = Tampering.place(source, O_PROJ);
        byte[] file = Files.readAllBytes(source.resolve(place.file()));
        long headerBytes = place.offset() - place.info().begin();
        int at = new String(file, 0, (int) headerBytes, StandardCharsets.ISO_8859_1).indexOf("o_proj.weight") + "o_pro".length();
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 1);
                ReplyTamperer proxy = ReplyTamperer.xoringAByteOfReadsOf(new InetSocketAddress("127.0.0.1", cluster.node(0).port()),
                        headerBytes, at, (byte) ('j' ^ 'k'))) {
            importInto(cluster.client(), "tiny");
            cluster.advertise(0, proxy.port());
            StoreClient engine = cluster.client(ClientOptions.defaults().withSameHostPath(false));

            assertCorrupt(() -> load(engine, "tiny", 0, 1, LoadOptions.defaults(), new ArrayList<>()), "the header of stored "
                    + place.file() + " of tiny arrived with CRC32C", "where the import recorded");
            assertThat(proxy.tamperedReplies()).isPositive();
        }
    }

    /**
     * Bytes changed by a multiple of the CRC32C polynomial, in a node's pool: every block CRC and every
     * tensor CRC still matches, so neither the node nor a whole-tensor check sees it. A column shard
     * that takes only part of the change does; SHA-256 always does.
     */
    @Test
    void bytesForgedToKeepEveryCrcAreCaughtBySha256AndByAShardThatSplitsThem() throws Exception {
        byte[] data = new byte[1000];
        new SplittableRandom(1).nextBytes(data);
        int before = Checksums.crc32c(MemorySegment.ofArray(data));
        for (int i = 0; i < Tampering.CRC_PRESERVING.length; i++) {
            data[300 + i] ^= Tampering.CRC_PRESERVING[i];
        }
        assertThat(Checksums.crc32c(MemorySegment.ofArray(data))).as("the mask keeps a CRC32C").isEqualTo(before);

        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 1)) {
            StoreClient store = cluster.client();
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            long rowBytes = place.info().byteSize() / place.info().shape().getFirst();
            // Across the boundary between rank 0's and rank 1's columns of row 3.
            long at = place.offset() + 3 * rowBytes + rowBytes / 2 - 2;
            cluster.xorBytes("weights/tiny/files/" + place.file(), (int) (at / TestCluster.SLICE), at % TestCluster.SLICE,
                    Tampering.CRC_PRESERVING);

            List<byte[]> whole = new ArrayList<>();
            List<String> names = load(store, "tiny", 0, 1, LoadOptions.defaults(), whole);
            byte[] original = Files.readAllBytes(source.resolve(place.file()));
            byte[] expected = Arrays.copyOfRange(original, (int) place.offset(), (int) (place.offset() + place.info().byteSize()));
            assertThat(whole.get(names.indexOf(O_PROJ))).as("a CRC32C cannot tell").isNotEqualTo(expected);

            assertCorrupt(() -> load(store, "tiny", 0, 2, LoadOptions.defaults(), new ArrayList<>()), "tensor " + O_PROJ,
                    "rank 0 of 2's columns");
            try (CheckpointSource checkpoint = CheckpointSource.open(store, CheckpointId.of("tiny"), LoadOptions.defaults())) {
                assertCorrupt(() -> checkpoint.verifyFiles(Progress.NONE), place.file() + " of tiny read back with sha256");
            }
        }
    }

    /** The same forgery put by the importer: its checksum digest is the import's, so only SHA-256 tells. */
    @Test
    void aReplacementWithForgedCrcsPassesTheMetadataChecksAndFailsVerify() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Tampering.Place place = Tampering.place(source, O_PROJ);
            store.put("weights/tiny/files/" + place.file(), Tampering.xored(source.resolve(place.file()), place.offset() + 100,
                    Tampering.CRC_PRESERVING, tmp.resolve("forged.safetensors")), PutOptions.defaults().withReplace(true)
                    .withPin(true), Progress.NONE);
            assertThat(load(store, "tiny", 0, 1, LoadOptions.defaults(), new ArrayList<>())).contains(O_PROJ);
            try (CheckpointSource checkpoint = CheckpointSource.open(store, CheckpointId.of("tiny"), LoadOptions.defaults())) {
                assertCorrupt(() -> checkpoint.verifyFiles(Progress.NONE), place.file() + " of tiny read back with sha256");
            }
        }
    }

    /** A manifest written before schema 2 loads as before; its files are only checked by size, and verify says so. */
    @Test
    void aSchemaOneManifestStillLoadsUnchecked() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            importInto(store, "tiny");
            Catalog catalog = new Catalog(store);
            Manifest current = catalog.readyManifest(CheckpointId.of("tiny"));
            List<ManifestFile> files = current.files().stream().map(f -> new ManifestFile(f.path(), f.size(), f.sha256(), f.kind(),
                    f.headerLength(), f.tensorCount())).toList();
            Manifest old = new Manifest(1, current.checkpointId(), current.modelId(), current.revision(), current.source(),
                    current.status(), current.createdAt(), current.updatedAt(), current.totalBytes(), null, null, 0, files);
            assertThat(new String(old.toJson())).doesNotContain("importedBy", "checksumDigest", "tensorCrcsSha256");
            ManifestRewrites.write(store, old);

            LoadReport report;
            try (CheckpointSource checkpoint = CheckpointSource.open(store, CheckpointId.of("tiny"), LoadOptions.defaults())) {
                report = checkpoint.load(0, 2, ShardPlan.preset("llama"), tensor -> {}, Progress.NONE);
            }
            // The embedded store's tensors are seen in place, but for the column shards, which are read: no CRC checks those.
            assertThat(report.clientChecked()).isZero();
            assertThat(report.nodeChecked()).isPositive();
            assertThat(report.nodeChecked() + report.seenInPlace()).isEqualTo(report.tensors());
            List<FileVerdict> verdicts = new CheckpointVerifier(catalog).run(CheckpointId.of("tiny"), CheckpointVerifier.Mode.FULL,
                    Progress.NONE).files();
            assertThat(verdicts).isNotEmpty().allSatisfy(v -> {
                assertThat(v.status()).isEqualTo(FileVerdict.Status.OK);
                assertThat(v.detail()).contains("schema 1 manifest", "not checked");
            });
            assertThat(catalog.list()).singleElement().satisfies(listed -> assertThat(listed.checked()).isFalse());
        }
    }
}
