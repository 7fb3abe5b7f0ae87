package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.weightstore.weights.testing.FileSha256;
import io.weightstore.format.DType;
import io.weightstore.format.WeightIndex;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog's behaviour, the same on every kind of store; each subclass opens one. */
abstract class CatalogContract {
    @TempDir
    Path tmp;

    Path source;

    abstract StoreClient store();

    int replicas() {
        return 1;
    }

    Catalog catalog() {
        return new Catalog(store());
    }

    @BeforeEach
    void synthesize() throws IOException {
        source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 3), source, b -> {});
    }

    static CheckpointId id(String value) {
        return new CheckpointId(value);
    }

    ImportResult importSource(String id) throws IOException {
        return new CheckpointImporter(catalog()).run(new ImportRequest(CheckpointId.of(id), "org/tiny", "r1", source, replicas(),
                false, 2), Progress.NONE);
    }

    /** Something a test does to the world while an import runs. */
    @FunctionalInterface
    interface Meanwhile {
        void run() throws IOException;
    }

    /**
     * Changes a file's last byte in place, never shorter for a moment (a mapped file that shrinks faults
     * its readers instead): the same size, other bytes, as an editor or a fine-tune of the same shapes.
     */
    /** Changes a JSON object's bytes and keeps it JSON: an import refuses a config or an index that is not. */
    static void editJson(Path file) throws IOException {
        Files.writeString(file, Files.readString(file).replaceFirst("\\{", "{\"edited\": true, "));
    }

    static void flipLastByte(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer last = ByteBuffer.allocate(1);
            channel.read(last, channel.size() - 1);
            channel.write(last.put(0, (byte) (last.get(0) ^ 1)).rewind(), channel.size() - 1);
        }
    }

    /** A progress that does {@code meanwhile} once, when the import reports its first bytes, on the thread that sent them. */
    static Progress onFirstBytes(Meanwhile meanwhile) {
        return new Progress() {
            private boolean done;

            @Override
            public synchronized void advanced(long bytes) {
                if (!done) {
                    done = true;
                    try {
                        meanwhile.run();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        };
    }

    @Test
    void importListInspectVerifyExportDelete() throws Exception {
        ImportResult result = importSource("tiny");
        assertThat(result.manifest().status()).isEqualTo(CheckpointStatus.READY);
        assertThat(result.uploadedFiles()).isEqualTo(result.manifest().files().size());

        assertThat(catalog().list()).singleElement().satisfies(listed -> {
            assertThat(listed.manifest().checkpointId()).isEqualTo(id("tiny"));
            assertThat(listed.manifest().modelId()).isEqualTo("org/tiny");
            assertThat(listed.manifest().revision()).isEqualTo("r1");
            assertThat(listed.checked()).isTrue();
            assertThat(listed.problems()).isEmpty();
        });
        Manifest manifest = catalog().readyManifest(id("tiny"));
        for (ManifestFile file : manifest.files()) {
            assertThat(file.sha256()).as(file.path()).isEqualTo(FileSha256.of(source.resolve(file.path())));
        }

        CheckpointInspector.Report report = new CheckpointInspector(catalog()).run(id("tiny"));
        assertThat(report.files()).filteredOn(f -> f.path().endsWith(".safetensors")).allSatisfy(f -> {
            assertThat(f.dtypes()).containsExactly("BF16");
            assertThat(f.stored()).isTrue();
            assertThat(f.nodes()).isNotEmpty().allSatisfy(h -> assertThat(h.up()).isTrue());
        });

        for (CheckpointVerifier.Mode mode : CheckpointVerifier.Mode.values()) {
            CheckpointVerifier.Report verified = new CheckpointVerifier(catalog()).run(id("tiny"), mode, b -> {});
            assertThat(verified.ok()).as(mode + ": " + verified).isTrue();
            assertThat(verified.files()).hasSize(manifest.files().size());
            assertThat(verified.repairs()).isEmpty();
        }

        Path exported = tmp.resolve("exported");
        new CheckpointExporter(catalog()).exportAll(id("tiny"), exported, b -> {});
        for (ManifestFile file : manifest.files()) {
            assertThat(FileSha256.of(exported.resolve(file.path()))).as(file.path()).isEqualTo(file.sha256());
        }
        try (var written = Files.list(exported)) {
            assertThat(written.map(p -> p.getFileName().toString())).as("the model's files, and no CRC table")
                    .containsExactlyInAnyOrderElementsOf(manifest.files().stream().map(ManifestFile::path).toList());
        }
        Path one = tmp.resolve("one.json");
        new CheckpointExporter(catalog()).exportOne(id("tiny"), "config.json", one, b -> {});
        assertThat(Files.readString(one)).isEqualTo(Files.readString(source.resolve("config.json")));

        assertThat(new CheckpointRemover(catalog()).run(id("tiny"), false)).isEqualTo(manifest.files().size());
        assertThat(store().list("weights/tiny/")).isEmpty();
        assertThat(catalog().list()).isEmpty();
    }

    /** Replaces checkpoint "tiny" with the source as it is now, one file at a time. */
    ImportResult replaceTiny(String revision, Progress progress) throws IOException {
        return new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", revision, source, replicas(), true, 1),
                progress);
    }

    /** Every key under a checkpoint's prefix is its manifest or a file (or CRC table) its manifest names. */
    void assertOnlyWhatTheManifestNames(Manifest manifest) throws IOException {
        List<String> named = new ArrayList<>(List.of(Catalog.manifestKey(manifest.checkpointId())));
        for (StoredFile file : catalog().files(manifest)) {
            named.add(file.key());
            if (file.file().isSafetensors()) {
                named.add(file.checksKey());
            }
        }
        assertThat(store().list(Catalog.prefix(manifest.checkpointId()))).extracting(ObjectMeta::key)
                .containsExactlyInAnyOrderElementsOf(named);
    }

    private void assertVerifiesWhole(CheckpointId id) throws IOException {
        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog()).run(id, CheckpointVerifier.Mode.FULL, b -> {});
        assertThat(verified.ok()).as(verified.toString()).isTrue();
    }

    @Test
    void readyCheckpointIsNotImportedOverUnlessReplaced() throws Exception {
        importSource("tiny");
        assertCheckpointError(() -> importSource("tiny"), CheckpointException.Code.ALREADY_EXISTS, "--replace");
        ImportResult again = replaceTiny("r2", Progress.NONE);
        assertThat(again.manifest().revision()).isEqualTo("r2");
    }

    @Test
    void aReplaceWaitsForAReaderHoldingTheManifestAndFinishes() throws Exception {
        importSource("tiny");
        editJson(source.resolve("config.json"));
        CompletableFuture<ImportResult> replaced;
        try (ObjectReader reader = store().open(Catalog.manifestKey(id("tiny")))) {
            replaced = CompletableFuture.supplyAsync(() -> {
                try {
                    return replaceTiny("r2", Progress.NONE);
                } catch (IOException e) {
                    throw new UncompletedImport(e);
                }
            });
            // Long enough for the replace to reach its switch, which the master refuses while the reader holds the manifest.
            Thread.sleep(2000);
            assertThat(replaced).as("the replace, with the manifest still read").isNotCompletedExceptionally();
        }
        assertThat(replaced.get(1, TimeUnit.MINUTES).manifest().revision()).isEqualTo("r2");
        assertThat(catalog().readyManifest(id("tiny")).revision()).isEqualTo("r2");
    }

    /** An import's failure, carried out of the thread that ran it. */
    static final class UncompletedImport extends RuntimeException {
        UncompletedImport(IOException cause) {
            super(cause);
        }
    }

    @Test
    void anImportsProgressCountsTowardTheWholeCheckpoint() throws Exception {
        List<Long> totals = new ArrayList<>();
        long[] advanced = new long[1];
        ImportResult result = new CheckpointImporter(catalog()).run(new ImportRequest(CheckpointId.of("tiny"), "org/tiny", "r1", source,
                replicas(), false, 2), new Progress() {
                    @Override
                    public synchronized void advanced(long bytes) {
                        advanced[0] += bytes;
                    }

                    @Override
                    public synchronized void started(long totalBytes) {
                        totals.add(totalBytes);
                    }
                });
        long total = result.manifest().files().stream().mapToLong(ManifestFile::size).sum();
        assertThat(totals).as("totals announced").containsExactly(total);
        assertThat(advanced[0]).isEqualTo(total);
    }

    @Test
    void aReplaceRemovesTheFilesOfTheVersionBeforeThatItNoLongerNames() throws Exception {
        Files.writeString(source.resolve("notes.txt"), "only in the first version");
        importSource("tiny");
        assertThat(store().find("weights/tiny/files/notes.txt")).isPresent();
        Files.delete(source.resolve("notes.txt"));
        ImportResult replaced = replaceTiny("r2", Progress.NONE);
        assertThat(replaced.manifest().file("notes.txt")).isEmpty();
        assertThat(store().find("weights/tiny/files/notes.txt")).as("not named by the READY manifest, so not kept").isEmpty();
        assertOnlyWhatTheManifestNames(replaced.manifest());
    }

    @Test
    void aReplaceKeepsWhatDidNotChangeWhereItIsAndWritesWhatChangedBesideTheVersionBefore() throws Exception {
        Manifest first = importSource("tiny").manifest();
        String shard;
        try (var files = Files.list(source)) {
            shard = files.max(Comparator.comparingLong(f -> f.toFile().length())).orElseThrow().getFileName().toString();
        }
        flipLastByte(source.resolve(shard));

        ImportResult replaced = replaceTiny("r2", Progress.NONE);
        Manifest second = replaced.manifest();
        assertThat(second.version()).isEqualTo(1);
        assertThat(replaced.uploadedFiles()).isEqualTo(1);
        assertThat(second.files()).allSatisfy(f -> {
            if (f.path().equals(shard)) {
                assertThat(f.version()).as("the changed file, written as the new version").isEqualTo(1);
                assertThat(f.sha256()).isNotEqualTo(first.file(shard).orElseThrow().sha256());
            } else {
                assertThat(f).as("a file that did not change, kept as the first version stored it").isEqualTo(first.file(f.path())
                        .orElseThrow());
            }
        });
        assertThat(store().find("weights/tiny/v1/files/" + shard)).isPresent();
        assertOnlyWhatTheManifestNames(second);
        assertVerifiesWhole(id("tiny"));

        flipLastByte(source.resolve(shard));
        Manifest third = replaceTiny("r3", Progress.NONE).manifest();
        assertThat(third.version()).as("each replace, a version more").isEqualTo(2);
        assertThat(third.file(shard).orElseThrow().sha256()).isEqualTo(first.file(shard).orElseThrow().sha256());
        assertOnlyWhatTheManifestNames(third);
        assertVerifiesWhole(id("tiny"));
    }

    @Test
    void filesAReaderHeldAsAReplaceFinishedAreListedAsLeftAndPrunedOnceItIsDone() throws Exception {
        Manifest first = importSource("tiny").manifest();
        ManifestFile held = first.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        flipLastByte(source.resolve(held.path()));
        Manifest second;
        try (ObjectReader reader = catalog().file(first, held).open()) {
            second = replaceTiny("r2", Progress.NONE).manifest();
            assertThat(store().find(catalog().file(first, held).key())).as("read as the replace finished, so left").isPresent();
            assertThat(catalog().list()).singleElement().satisfies(listed -> {
                assertThat(listed.manifest()).isEqualTo(second);
                assertThat(listed.problems()).isEmpty();
                assertThat(listed.leftovers()).as("the file and its CRC table")
                        .isEqualTo(new ListedCheckpoint.Leftovers(2, held.size() + store().stat(catalog().file(first, held).checksKey())
                                .size()));
            });
            assertCheckpointError(() -> new CheckpointPruner(catalog()).run(id("tiny"), false), CheckpointException.Code.LOCKED,
                    "run prune again when the readers finish");
        }
        assertThat(new CheckpointPruner(catalog()).run(id("tiny"), false).objects()).isEqualTo(2);
        assertThat(catalog().list()).singleElement().satisfies(listed -> assertThat(listed.leftovers()).isNull());
        assertOnlyWhatTheManifestNames(second);
        assertThat(new CheckpointPruner(catalog()).run(id("tiny"), false)).isEqualTo(new ListedCheckpoint.Leftovers(0, 0));
    }

    @Test
    void aReplaceThatFailsLeavesTheVersionBeforeReadyAndWholeAndARunAgainFinishesIt() throws Exception {
        Manifest first = importSource("tiny").manifest();
        List<Path> files;
        try (var listed = Files.list(source)) {
            files = listed.filter(f -> f.toFile().length() > 0).toList();
        }
        for (Path file : files) {
            if (file.endsWith("config.json") || file.endsWith(WeightIndex.FILE_NAME)) {
                editJson(file);
            } else {
                flipLastByte(file);
            }
        }
        Path victim = source.resolve("tokenizer.json");
        byte[] victimBytes = Files.readAllBytes(victim);
        Progress truncateOnce = onFirstBytes(() -> {
            try (FileChannel channel = FileChannel.open(victim, StandardOpenOption.WRITE)) {
                channel.truncate(10);
            }
        });
        assertCheckpointError(() -> replaceTiny("r2", truncateOnce), CheckpointException.Code.CHANGED, "changed during the import");

        assertThat(catalog().readyManifest(id("tiny"))).as("the version before, as it was").isEqualTo(first);
        assertVerifiesWhole(id("tiny"));
        assertThat(catalog().storedReplacement(id("tiny")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
        assertThat(store().list("weights/tiny/v1/")).as("what the failed replace wrote, freed").isEmpty();
        assertThat(catalog().list()).singleElement().satisfies(listed -> {
            assertThat(listed.manifest()).isEqualTo(first);
            assertThat(listed.problems()).isEmpty();
            assertThat(listed.replacement()).as("the failed replace, shown beside the version loaders read").satisfies(r -> {
                assertThat(r.version()).isEqualTo(1);
                assertThat(r.revision()).isEqualTo("r2");
                assertThat(r.status()).isEqualTo(CheckpointStatus.FAILED);
                assertThat(r.error()).contains("changed during the import");
            });
        });

        Files.write(victim, victimBytes);
        Manifest second = replaceTiny("r2", Progress.NONE).manifest();
        assertThat(second.version()).as("the failed replace's version, gone on with").isEqualTo(1);
        assertThat(second.files()).allSatisfy(f -> assertThat(f.version()).as(f.path()).isEqualTo(1));
        assertThat(catalog().storedReplacement(id("tiny"))).as("the replacement's manifest, gone once READY").isEmpty();
        assertThat(catalog().list()).singleElement().satisfies(listed -> assertThat(listed.replacement()).isNull());
        assertOnlyWhatTheManifestNames(second);
        assertVerifiesWhole(id("tiny"));
    }

    @Test
    void interruptedImportResumesWithoutSendingStoredFilesAgain() throws Exception {
        importSource("tiny");
        // Pretend the import stopped half-way: the manifest is back to IMPORTING, files stay stored.
        Manifest ready = catalog().readyManifest(id("tiny"));
        ManifestRewrites.write(store(), ready.withStatus(CheckpointStatus.IMPORTING, Catalog.now(), null));
        assertCheckpointError(() -> catalog().readyManifest(id("tiny")), CheckpointException.Code.NOT_READY, "IMPORTING");
        ImportResult resumed = importSource("tiny");
        assertThat(resumed.skippedFiles()).isEqualTo(ready.files().size());
        assertThat(resumed.uploadedFiles()).isZero();
        assertThat(resumed.manifest().status()).isEqualTo(CheckpointStatus.READY);
        assertThat(resumed.manifest().files()).isEqualTo(ready.files());
    }

    @Test
    void changedFileIsSentAgainOnResume() throws Exception {
        importSource("tiny");
        Manifest ready = catalog().readyManifest(id("tiny"));
        ManifestRewrites.write(store(), ready.withStatus(CheckpointStatus.FAILED, Catalog.now(), "test"));
        Files.writeString(source.resolve("config.json"), Files.readString(source.resolve("config.json")).replace("llama", "LLAMA"));
        ImportResult resumed = importSource("tiny");
        assertThat(resumed.uploadedFiles()).isEqualTo(1);
        assertThat(resumed.manifest().file("config.json").orElseThrow().sha256()).isEqualTo(FileSha256.of(source.resolve("config.json")));
    }

    @Test
    void truncatedSafetensorsIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path shard = Files.list(source).filter(p -> p.toString().endsWith(".safetensors")).findFirst().orElseThrow();
        try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 1);
        }
        assertRefusedAndNothingWritten(CheckpointException.Code.INVALID, "(truncated)");
    }

    @Test
    void overlappingTensorsAreRefusedBeforeAnythingIsWritten() throws Exception {
        Path file = source.resolve("model-00001-of-00001.safetensors");
        String header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}";
        ByteBuffer bytes = ByteBuffer.allocate(8 + header.length() + 12).order(ByteOrder.LITTLE_ENDIAN);
        bytes.putLong(header.length()).put(header.getBytes());
        Files.write(file, bytes.array());
        assertRefusedAndNothingWritten(CheckpointException.Code.INVALID, "overlaps tensor 'a'");
    }

    @Test
    void indexNamingAMissingFileIsRefusedBeforeAnythingIsWritten() throws Exception {
        Path index = source.resolve("model.safetensors.index.json");
        Files.writeString(index, Files.readString(index).replaceFirst("model-00001-of-\\d+", "model-00009-of-00009"));
        assertRefusedAndNothingWritten(CheckpointException.Code.INVALID, "model-00009-of-00009.safetensors");
    }

    @Test
    void symlinkLeavingTheSourceIsRefusedBeforeAnythingIsWritten() throws Exception {
        Files.createSymbolicLink(source.resolve("notes.txt"), Files.writeString(tmp.resolve("outside.txt"), "secret"));
        assertRefusedAndNothingWritten(CheckpointException.Code.INVALID, "symlink notes.txt");
    }

    @Test
    void aFileNameNoKeyMayHoldIsRefusedBeforeAnythingIsWritten() throws Exception {
        Files.writeString(source.resolve("notes\tv2.txt"), "tab");
        assertRefusedAndNothingWritten(CheckpointException.Code.INVALID, "file name notes?v2.txt cannot be stored");
    }

    @Test
    void moreReplicasThanNodesUpIsRefusedBeforeAnythingIsWritten() throws Exception {
        int nodes = store().status().nodes().size();
        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("many"), "org/tiny", "main", source,
                nodes + 1, false, 1), Progress.NONE), CheckpointException.Code.TOO_FEW_NODES, "replicas=" + (nodes + 1));
        assertThat(store().list("weights/")).isEmpty();
    }

    @Test
    void importThatCannotFitIsRefusedBeforeAnythingIsWrittenOrEvicted() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Room room = store().room();
            long fill = room.capacity() - room.used() - (300 << 10);
            store().put("filler", arena.allocate(fill), PutOptions.defaults().withPin(true).withSliceSize(1 << 20));
            store().put("loose", arena.allocate(100 << 10), PutOptions.defaults());
        }
        assertRefusedAndNothingWritten(CheckpointException.Code.NO_SPACE, "that eviction could free");
        assertThat(store().find("loose")).as("nothing evicted for an import that could not fit").isPresent();
    }

    @Test
    void failedImportFreesWhatItWrote() throws Exception {
        long before = store().room().used();
        Path victim = source.resolve("tokenizer.json");
        Progress truncateOnce = onFirstBytes(() -> {
            try (FileChannel channel = FileChannel.open(victim, StandardOpenOption.WRITE)) {
                channel.truncate(10);
            }
        });
        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("half"), "org/tiny", "main", source,
                replicas(), false, 1), truncateOnce), CheckpointException.Code.CHANGED, "changed during the import");
        assertThat(catalog().manifest(id("half")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
        assertThat(store().list("weights/half/files/")).as("files of the failed run removed").isEmpty();
        ObjectMeta manifest = store().stat("weights/half/manifest");
        long manifestSpace = manifest.replicas() * Math.ceilDiv(manifest.size(), 4096) * 4096;
        assertThat(store().room().used()).as("only the FAILED manifest is left").isEqualTo(before + manifestSpace);
        assertCheckpointError(() -> new CheckpointVerifier(catalog()).run(id("half"), CheckpointVerifier.Mode.FULL, b -> {}),
                CheckpointException.Code.NOT_READY, "is FAILED, not READY (tokenizer.json changed during the import");
    }

    @Test
    void anImportThatLostItsLockWritesNothingMoreAndLeavesTheNextHolderAlone() throws Exception {
        String lockName = Catalog.lockName(id("taken"));
        String next = "another-host/1/import/n";
        // As if the importer had been paused past its lock's expiry, and another writer had taken the lock.
        Progress lockTakenOnce = onFirstBytes(() -> {
            store().releaseLock(lockName, store().tryLock(lockName, next, CatalogLock.TTL).owner());
            assertThat(store().tryLock(lockName, next, CatalogLock.TTL).held()).isTrue();
        });
        assertThatThrownBy(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("taken"), "org/tiny", "main", source,
                replicas(), false, 1), lockTakenOnce)).hasMessageContaining("no longer holds it");
        assertThat(catalog().manifest(id("taken")).orElseThrow().status()).as("never READY, nor marked by the importer")
                .isEqualTo(CheckpointStatus.IMPORTING);
        assertThat(store().tryLock(lockName, next, CatalogLock.TTL).held()).as("still the next holder's").isTrue();
        store().releaseLock(lockName, next);
    }

    @Test
    void aManifestNoOneCanReadIsListedAsFailedAndHidesNoOtherCheckpoint() throws Exception {
        importSource("tiny");
        store().put("weights/junk/manifest", "not a manifest".getBytes(StandardCharsets.UTF_8), PutOptions.defaults());
        store().put("weights/newer/manifest", "{\"schemaVersion\": 4, \"files\": []}".getBytes(StandardCharsets.UTF_8),
                PutOptions.defaults());

        List<ListedCheckpoint> listed = catalog().list();
        assertThat(listed).extracting(l -> l.checkpointId().value(), ListedCheckpoint::status)
                .containsExactly(tuple("junk", CheckpointStatus.FAILED), tuple("newer", CheckpointStatus.FAILED),
                        tuple("tiny", CheckpointStatus.READY));
        assertThat(listed.get(0).problems()).singleElement().asString().contains("weights/junk/manifest is not a manifest");
        assertThat(listed.get(1).problems()).singleElement().asString().contains("schema version 4");
        assertThat(listed.get(2).problems()).isEmpty();
    }

    @Test
    void aFileRewrittenInPlaceDuringTheImportFailsIt() throws Exception {
        // Same sizes, other bytes, as an editor or a download over the source would leave them; the file being stored now
        // was opened before, and its hash, its CRC table and the bytes sent may be of either version.
        Progress rewriteOnce = onFirstBytes(() -> {
            try (var files = Files.list(source)) {
                for (Path file : files.filter(f -> f.toFile().length() > 0).toList()) {
                    flipLastByte(file);
                    Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(60)));
                }
            }
        });
        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("rewritten"), "org/tiny", "main", source,
                replicas(), false, 1), rewriteOnce), CheckpointException.Code.CHANGED, "changed during the import");
        assertThat(catalog().manifest(id("rewritten")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
    }

    @Test
    void aShardWhoseHeaderWasRewrittenAfterValidationIsRefusedAsChanged() throws Exception {
        // The same size, the tensors' names swapped: what a CRC table of the validated header would not match.
        Path shard;
        try (var files = Files.list(source)) {
            shard = files.filter(p -> p.toString().endsWith(".safetensors")).findFirst().orElseThrow();
        }
        Progress swapOnce = onFirstBytes(() -> {
            try (FileChannel channel = FileChannel.open(shard, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
                channel.read(length, 0);
                ByteBuffer header = ByteBuffer.allocate((int) length.getLong(0));
                channel.read(header, 8);
                String text = new String(header.array(), StandardCharsets.UTF_8);
                assertThat(text).contains("self_attn.q_proj.weight", "self_attn.o_proj.weight");
                String swapped = text.replace("self_attn.q_proj.", "self_attn.#_proj.").replace("self_attn.o_proj.", "self_attn.q_proj.")
                        .replace("self_attn.#_proj.", "self_attn.o_proj.");
                channel.write(ByteBuffer.wrap(swapped.getBytes(StandardCharsets.UTF_8)), 8);
            }
        });
        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("swapped"), "org/tiny", "main", source,
                replicas(), false, 1), swapOnce), CheckpointException.Code.CHANGED, shard.getFileName() + " changed during the import: its"
                + " header is not the one the import validated");
    }

    @Test
    void aDirectoryReplacedByALinkAfterValidationIsRefusedAsChangedAndNothingBeyondItIsStored() throws Exception {
        Path original = Files.createDirectory(source.resolve("original"));
        Files.writeString(original.resolve("params.json"), "{\"dim\": 64}");
        // The same name and size, outside the source: what a path through a link would reach.
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("params.json"), "secret: 420");
        // Files go one at a time in the order of their names: config.json, read first, is sent before original/ is opened.
        Progress relinkOnce = onFirstBytes(() -> {
            Files.move(original, tmp.resolve("moved-away"));
            Files.createSymbolicLink(original, elsewhere);
        });

        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("relinked"), "org/tiny", "main", source,
                replicas(), false, 1), relinkOnce), CheckpointException.Code.CHANGED, "original/params.json changed during the import: "
                + source.toRealPath().resolve("original") + " is a link now, where the import found no link");
        assertThat(catalog().manifest(id("relinked")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
        assertThat(store().list("weights/relinked/files/")).as("what the failed run sent, freed").isEmpty();
    }

    @Test
    void aFileDeletedAfterValidationIsRefusedAsChangedSayingItIsGone() throws Exception {
        Path victim = source.resolve("tokenizer_config.json").toRealPath();
        Progress deleteOnce = onFirstBytes(() -> Files.delete(victim));

        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("gone"), "org/tiny", "main", source,
                replicas(), false, 1), deleteOnce), CheckpointException.Code.CHANGED, "tokenizer_config.json changed during the"
                + " import: it is gone (" + victim + ")");
        assertThat(catalog().manifest(id("gone")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
    }

    @Test
    void aVerifyAndAnExportThatAReplaceOvertakesFinishOnTheVersionTheyStartedWith() throws Exception {
        importSource("tiny");
        // The last file in the manifest's order, changed: a replace removes the version before's copy once READY.
        Path last = source.resolve("tokenizer_config.json");
        Files.writeString(last, Files.readString(last).replace("}", ", \"padding_side\": \"left\"}"));
        Meanwhile replace = () -> new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r2", source,
                replicas(), true, 1), Progress.NONE);

        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog()).run(id("tiny"), CheckpointVerifier.Mode.FULL,
                onFirstBytes(replace));
        assertThat(verified.files()).extracting(FileVerdict::path, FileVerdict::status).contains(
                tuple("tokenizer_config.json", FileVerdict.Status.OK));
        assertThat(verified.status()).isEqualTo(FileVerdict.Status.OK);
        assertThat(catalog().readyManifest(id("tiny")).revision()).isEqualTo("r2");

        Files.writeString(last, Files.readString(last).replace("left", "right"));
        Path out = tmp.resolve("export");
        List<ManifestFile> exported = new CheckpointExporter(catalog()).exportAll(id("tiny"), out, onFirstBytes(() -> {
            new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r3", source, replicas(), true, 1),
                    Progress.NONE);
        }));
        assertThat(exported).extracting(ManifestFile::path).contains("tokenizer_config.json");
        assertThat(Files.readString(out.resolve("tokenizer_config.json"))).contains("left");
    }

    @Test
    void anExportIntoADirectoryAnotherExportIsWritingIsRefusedAndTheFirstFinishesAlone() throws Exception {
        importSource("tiny");
        Path out = tmp.resolve("shared-output");
        CheckpointExporter exporter = new CheckpointExporter(catalog());

        List<ManifestFile> exported = exporter.exportAll(id("tiny"), out, onFirstBytes(() ->
                assertThatThrownBy(() -> exporter.exportAll(id("tiny"), out, Progress.NONE))
                        .isInstanceOf(CheckpointException.class).hasMessageContaining("another export is writing into " + out)));

        try (var written = Files.list(out)) {
            assertThat(written.map(p -> p.getFileName().toString())).as("the first export's files, and no marker")
                    .containsExactlyInAnyOrderElementsOf(exported.stream().map(ManifestFile::path).toList());
        }
        for (ManifestFile file : exported) {
            assertThat(FileSha256.of(out.resolve(file.path()))).as(file.path()).isEqualTo(file.sha256());
        }
    }

    @Test
    void anExportOfOneFileThatAReplaceOvertakesBeforeItOpensTheFileFinishesOnTheVersionItRead() throws Exception {
        importSource("tiny");
        Path last = source.resolve("tokenizer_config.json");
        String first = Files.readString(last);
        Files.writeString(last, first.replace("}", ", \"padding_side\": \"left\"}"));
        Path out = tmp.resolve("one-file");
        Progress replaceWhenStarted = new Progress() {
            @Override
            public void advanced(long bytes) {}

            @Override
            public void started(long totalBytes) {
                try {
                    new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r2", source, replicas(), true, 1),
                            Progress.NONE);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };

        new CheckpointExporter(catalog()).exportOne(id("tiny"), "tokenizer_config.json", out, replaceWhenStarted);

        assertThat(catalog().readyManifest(id("tiny")).revision()).isEqualTo("r2");
        assertThat(out).hasContent(first);
    }

    @Test
    void badCheckpointIdIsRefused() throws Exception {
        for (String id : List.of("../x", "", "-x", "a/b", "x".repeat(256))) {
            assertCheckpointError(() -> importSource(id), CheckpointException.Code.INVALID, "must match");
        }
        assertThat(store().list("weights/")).isEmpty();
    }

    @Test
    void unknownCheckpointIsNotFound() {
        assertCheckpointError(() -> new CheckpointVerifier(catalog()).run(id("nope"), CheckpointVerifier.Mode.FULL, b -> {}),
                CheckpointException.Code.NOT_FOUND, "no checkpoint nope");
        assertCheckpointError(() -> new CheckpointRemover(catalog()).run(id("nope"), false), CheckpointException.Code.NOT_FOUND,
                "no checkpoint nope");
    }

    private void assertRefusedAndNothingWritten(CheckpointException.Code code, String message) throws IOException {
        assertCheckpointError(() -> importSource("bad"), code, message);
        assertThat(store().list("weights/")).isEmpty();
    }

    static void assertCheckpointError(ThrowingAction action, CheckpointException.Code code, String message) {
        assertThatThrownBy(action::run).asInstanceOf(InstanceOfAssertFactories.throwable(CheckpointException.class))
                .satisfies(e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(code))
                .hasMessageContaining(message);
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }
}
