package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.TestCluster;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The catalog on a loopback cluster of three nodes, plus what only a cluster shows: rot in a node's pool. */
class ClusterCatalogTest extends CatalogContract {
    private TestCluster cluster;
    private StoreClient store;

    @BeforeEach
    void start() throws StoreException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        store = cluster.client();
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Override
    StoreClient store() {
        return store;
    }

    @Override
    int replicas() {
        return 2;
    }

    /** Flips a byte in every copy of the checkpoint's manifest, so that no copy can serve it. */
    private void rotEveryCopyOfTheManifest(String checkpoint) throws Exception {
        ObjectMeta manifest = catalog().manifestObject(id(checkpoint)).orElseThrow();
        for (int copy = 0; copy < manifest.slices().getFirst().nodeIds().size(); copy++) {
            cluster.flipByte(manifest.key(), 0, copy, 10);
        }
    }

    /** Imports the source with two copies of every slice; returns the path of its first weight file. */
    private String importWeightFile(String checkpoint) throws Exception {
        new CheckpointImporter(catalog()).run(new ImportRequest(id(checkpoint), "org/tiny", "main", source, 2, false, 2), Progress.NONE);
        Manifest manifest = catalog().readyManifest(id(checkpoint));
        ManifestFile weight = manifest.files().stream().filter(ManifestFile::isWeight).findFirst().orElseThrow();
        return weight.path();
    }

    private String keyOf(String checkpoint, String path) throws Exception {
        Manifest manifest = catalog().readyManifest(id(checkpoint));
        return catalog().file(manifest, manifest.file(path).orElseThrow()).key();
    }

    private CheckpointVerifier.Report verify(String checkpoint, CheckpointVerifier.Mode mode) throws Exception {
        return new CheckpointVerifier(catalog()).run(id(checkpoint), mode, b -> {});
    }

    private static FileVerdict file(CheckpointVerifier.Report report, String path) {
        return report.files().stream().filter(v -> v.path().equals(path)).findFirst().orElseThrow();
    }

    /**
     * A node being drained is up but takes no new object: counted as up, it made every manifest ask for a copy more than
     * the nodes a put is placed on, and each import or replace was refused until the drain ended.
     */
    @Test
    void anImportWhileANodeIsDrainedWritesItsManifestOnTheNodesLeft() throws Exception {
        store.drainNode(cluster.node(2).nodeId(), false);

        new CheckpointImporter(catalog()).run(new ImportRequest(id("drained"), "org/tiny", "main", source, 1, false, 2), Progress.NONE);

        ObjectMeta manifest = catalog().manifestObject(id("drained")).orElseThrow();
        assertThat(catalog().readyManifest(id("drained")).status()).isEqualTo(CheckpointStatus.READY);
        assertThat(manifest.slices().getFirst().nodeIds()).hasSize(2).doesNotContain(cluster.node(2).nodeId());
    }

    @Test
    void aCheckpointWhoseManifestNoCopyCanServeIsListedAsFailedBesideTheOthers() throws Exception {
        importWeightFile("intact");
        importWeightFile("rotten");
        rotEveryCopyOfTheManifest("rotten");

        assertThat(catalog().list()).satisfiesExactly(
                intact -> assertThat(intact.status()).isEqualTo(CheckpointStatus.READY),
                rotten -> {
                    assertThat(rotten.checkpointId()).isEqualTo(id("rotten"));
                    assertThat(rotten.status()).isEqualTo(CheckpointStatus.FAILED);
                    assertThat(rotten.problems()).singleElement().asString().contains("the manifest cannot be read", "checksum");
                });
    }

    @Test
    void aMasterGoneBetweenTheListingAndTheManifestReadsFailsTheListingRatherThanCallingCheckpointsFailed() throws Exception {
        importWeightFile("first");
        importWeightFile("second");
        MasterApi master = cluster.masterCore();
        try (StoreClient client = StoreClient.over(goneAfterTheFirstListing(master), ClientOptions.defaults().withSameHostPath(false))) {
            assertThatThrownBy(() -> new Catalog(client).list()).isInstanceOfSatisfying(StoreException.class,
                    e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE)).hasMessageContaining("master gone");
        }
    }

    /**
     * {@code master}, until a call lists objects; every call after that fails as a master that went away
     * does. Closing it leaves {@code master}, the cluster's, open.
     */
    private static MasterApi goneAfterTheFirstListing(MasterApi master) {
        AtomicBoolean listed = new AtomicBoolean();
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    if (listed.get()) {
                        throw new StoreException(StoreException.Code.UNAVAILABLE, "master gone (" + method.getName() + ")");
                    }
                    try {
                        Object answer = method.invoke(master, args);
                        listed.compareAndSet(false, method.getName().equals("list"));
                        return answer;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * Once its manifest reads READY, an import is done whatever happens next: an Error while it lists the leftovers of
     * earlier versions once freed every file it had sent, under a READY manifest, and marked the checkpoint FAILED.
     */
    @Test
    void anErrorAfterTheSwitchToReadyLeavesTheCheckpointReadyAndWhole() throws Exception {
        String prefix = Catalog.prefix(id("switched"));
        MasterApi failingLeftoverListing = (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(),
                new Class<?>[] {MasterApi.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    if (method.getName().equals("list") && args[0].equals(prefix)) {
                        throw new OutOfMemoryError("test: no memory to list " + prefix);
                    }
                    try {
                        return method.invoke(cluster.masterCore(), args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        try (StoreClient client = StoreClient.over(failingLeftoverListing, ClientOptions.defaults().withSameHostPath(false))) {
            assertThatThrownBy(() -> new CheckpointImporter(new Catalog(client)).run(
                    new ImportRequest(id("switched"), "org/tiny", "main", source, 2, false, 2), Progress.NONE))
                    .isInstanceOf(OutOfMemoryError.class);
        }

        assertThat(catalog().readyManifest(id("switched")).status()).isEqualTo(CheckpointStatus.READY);
        CheckpointVerifier.Report verified = verify("switched", CheckpointVerifier.Mode.FULL);
        assertThat(verified.ok()).as(verified.toString()).isTrue();
    }

    @Test
    void verifyOfACheckpointWhoseManifestNoCopyCanServeReportsTheManifestsCopies() throws Exception {
        importWeightFile("rotten");
        rotEveryCopyOfTheManifest("rotten");

        CheckpointVerifier.Report report = verify("rotten", CheckpointVerifier.Mode.FULL);

        assertThat(report.status()).isEqualTo(FileVerdict.Status.CORRUPT);
        assertThat(report.manifest().detail()).contains("checksum mismatch");
        assertThat(report.files()).as("no file can be named without the manifest").isEmpty();
    }

    @Test
    void aFileWhoseOnlyCopyIsOnANodeThatIsDownIsInspectedAsUnreadable() throws Exception {
        new CheckpointImporter(catalog()).run(new ImportRequest(id("single"), "org/tiny", "main", source, 1, false, 2), Progress.NONE);
        Manifest manifest = catalog().readyManifest(id("single"));
        ManifestFile weight = manifest.files().stream().filter(ManifestFile::isWeight).findFirst().orElseThrow();
        String holder = store.stat(catalog().file(manifest, weight).key()).slices().getFirst().nodeIds().getFirst();
        cluster.stopNode(cluster.indexOf(holder));
        cluster.awaitDown(holder);

        CheckpointInspector.Report inspected = new CheckpointInspector(catalog()).run(id("single"));
        assertThat(inspected.files()).filteredOn(f -> f.path().equals(weight.path())).singleElement()
                .satisfies(f -> assertThat(f.copies().state()).isEqualTo(ReplicationStatus.State.UNREADABLE));
        ReplicaHealth copies = inspected.copies();
        assertThat(copies.state()).isEqualTo(ReplicationStatus.State.UNREADABLE);
        assertThat(copies.slicesUnreadable()).isPositive().isLessThanOrEqualTo(copies.slicesBelowTarget());
        assertThat(copies.describe()).startsWith("UNREADABLE: " + copies.slicesUnreadable() + " of " + copies.slices() + " slices");
    }

    @Test
    void fourFlippedBytesInOneCopyMakeTheFileDegradedAndRepairMakesItOk() throws Exception {
        String path = importWeightFile("rot");
        String key = keyOf("rot", path);
        for (long offset = 5000; offset < 5004; offset++) {
            cluster.flipByte(key, 0, offset);
        }
        CheckpointVerifier.Report found = verify("rot", CheckpointVerifier.Mode.FULL);
        assertThat(found.status()).isEqualTo(FileVerdict.Status.DEGRADED);
        assertThat(file(found, path)).satisfies(v -> {
            assertThat(v.status()).isEqualTo(FileVerdict.Status.DEGRADED);
            assertThat(v.detail()).contains("1 of 2 copies bad", "CORRUPT", "checksum mismatch");
            assertThat(v.badCopies()).singleElement().satisfies(c -> assertThat(c.slice()).isZero());
        });
        assertThat(found.files()).filteredOn(v -> !v.path().equals(path))
                .allSatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.OK));

        CheckpointVerifier.Report repaired = verify("rot", CheckpointVerifier.Mode.REPAIR);
        assertThat(repaired.ok()).as(repaired.toString()).isTrue();
        assertThat(repaired.repairs()).singleElement().satisfies(r -> assertThat(r.inPlace()).isTrue());
        assertThat(file(repaired, path).detail()).contains("1 copy repaired", "sha256");
        assertThat(verify("rot", CheckpointVerifier.Mode.FULL).ok()).isTrue();
    }

    /** A load reads a file's tensor CRC table beside it, so verify checks and repairs the table's copies as the file's. */
    @Test
    void aRottedCopyOfATensorCrcTableMakesItsFileDegradedAndRepairMakesItOk() throws Exception {
        String path = importWeightFile("table");
        Manifest manifest = catalog().readyManifest(id("table"));
        String table = catalog().file(manifest, manifest.file(path).orElseThrow()).checksKey();
        cluster.flipByte(table, 0, 100);
        CheckpointVerifier.Report found = verify("table", CheckpointVerifier.Mode.FULL);
        assertThat(file(found, path)).satisfies(v -> {
            assertThat(v.status()).isEqualTo(FileVerdict.Status.DEGRADED);
            assertThat(v.detail()).contains("its tensor CRC table: data whole, but 1 of", "copies bad", "checksum mismatch");
            assertThat(v.badCopies()).singleElement().satisfies(c -> assertThat(c.slice()).isZero());
        });
        assertThat(found.files()).filteredOn(v -> !v.path().equals(path))
                .allSatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.OK));

        CheckpointVerifier.Report repaired = verify("table", CheckpointVerifier.Mode.REPAIR);
        assertThat(repaired.ok()).as(repaired.toString()).isTrue();
        assertThat(repaired.repairs()).singleElement().satisfies(r -> assertThat(r.inPlace()).isTrue());
        assertThat(file(repaired, path).detail()).contains("its tensor CRC table", "1 copy repaired");
        assertThat(verify("table", CheckpointVerifier.Mode.FULL).ok()).isTrue();
    }

    @Test
    void everyCopyOfATensorCrcTableBadMakesItsFileCorrupt() throws Exception {
        String path = importWeightFile("tables");
        Manifest manifest = catalog().readyManifest(id("tables"));
        String table = catalog().file(manifest, manifest.file(path).orElseThrow()).checksKey();
        int copies;
        try (ObjectReader reader = store.open(table)) {
            copies = reader.object().slice(0).replicas().size();
        }
        for (int copy = 0; copy < copies; copy++) {
            cluster.flipByte(table, 0, copy, 100 + copy);
        }
        for (CheckpointVerifier.Mode mode : List.of(CheckpointVerifier.Mode.FULL, CheckpointVerifier.Mode.REPAIR)) {
            assertThat(file(verify("tables", mode), path)).as(mode.toString()).satisfies(v -> {
                assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT);
                assertThat(v.detail()).contains("its tensor CRC table: slice 0 has no good copy");
            });
        }
    }

    @Test
    void bothCopiesBadMakeTheFileCorruptAndRepairCannotHelp() throws Exception {
        String path = importWeightFile("both");
        String key = keyOf("both", path);
        cluster.flipByte(key, 0, 0, 5000);
        cluster.flipByte(key, 0, 1, 6000);
        for (CheckpointVerifier.Mode mode : List.of(CheckpointVerifier.Mode.FULL, CheckpointVerifier.Mode.REPAIR)) {
            CheckpointVerifier.Report report = verify("both", mode);
            assertThat(report.status()).isEqualTo(FileVerdict.Status.CORRUPT);
            assertThat(file(report, path).detail()).contains("slice 0 has no good copy", "checksum mismatch");
            assertThat(report.repairs()).allSatisfy(r -> {
                assertThat(r.repaired()).isFalse();
                assertThat(r.describe()).contains("no good copy of the slice");
            });
        }
    }

    @Test
    void aNodeBackWithoutItsPoolLeavesCopiesMissingUntilRepaired() throws Exception {
        importWeightFile("lost");
        String lost = cluster.restartNodeWithoutItsPool(0);
        for (CheckpointVerifier.Mode mode : List.of(CheckpointVerifier.Mode.FULL, CheckpointVerifier.Mode.QUICK)) {
            CheckpointVerifier.Report report = verify("lost", mode);
            assertThat(report.status()).as(mode + ": " + report).isEqualTo(FileVerdict.Status.DEGRADED);
            assertThat(report.manifest().status()).as("the manifest had a copy on every node").isEqualTo(FileVerdict.Status.DEGRADED);
            assertThat(report.files()).anySatisfy(v -> assertThat(v.detail()).contains("node " + lost + " is down"));
        }
        CheckpointVerifier.Report repaired = verify("lost", CheckpointVerifier.Mode.REPAIR);
        assertThat(repaired.ok()).as(repaired.toString()).isTrue();
        assertThat(repaired.repairs()).isNotEmpty().allSatisfy(r -> assertThat(r.replaced()).isEqualTo(lost));
        assertThat(verify("lost", CheckpointVerifier.Mode.QUICK).ok()).isTrue();
    }

    @Test
    void nodeDownMakesQuickVerifyReportMissingSlices() throws Exception {
        new CheckpointImporter(catalog()).run(new ImportRequest(id("down"), "org/tiny", "main", source, 1, false, 2), Progress.NONE);
        cluster.stopNode(0);
        cluster.stopNode(1);
        cluster.stopNode(2);
        Thread.sleep(TestCluster.config().nodeDeadline().toMillis() + 500);
        cluster.restartNode(0);
        // Manifests are kept on every node, so the one restarted still answers for it.
        CheckpointVerifier.Report report = verify("down", CheckpointVerifier.Mode.QUICK);
        assertThat(report.files()).anySatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.MISSING));
        assertThat(report.status()).isEqualTo(FileVerdict.Status.MISSING);
    }

    @Test
    void deleteRefusedWhileAnotherClientReadsChangesNothingAndForceRemovesAll() throws Exception {
        new CheckpointImporter(catalog()).run(new ImportRequest(id("busy"), "org/tiny", "main", source, 1, false, 2), Progress.NONE);
        Manifest manifest = catalog().readyManifest(id("busy"));
        int objects = store.list("weights/busy/").size();
        try (ObjectReader reader = cluster.client().open(catalog().file(manifest, manifest.file("config.json").orElseThrow()).key())) {
            assertCheckpointError(() -> new CheckpointRemover(catalog()).run(id("busy"), false), CheckpointException.Code.LOCKED,
                    "nothing was removed");
            assertThat(catalog().readyManifest(id("busy"))).isEqualTo(manifest);
            assertThat(store.list("weights/busy/")).hasSize(objects);
            assertThat(verify("busy", CheckpointVerifier.Mode.FULL).ok()).isTrue();
            new CheckpointRemover(catalog()).run(id("busy"), true);
        }
        assertThat(store.list("weights/busy/")).isEmpty();
    }

    @Test
    void aReplaceWithoutACountWritesTheFilesThatChangedWithTheCountReplicateSet() throws Exception {
        importSource("tiny");
        new CheckpointReplicator(catalog()).run(id("tiny"), Optional.of(3), true);
        editJson(source.resolve("config.json"));
        new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r2", source, OptionalInt.empty(), true, 1),
                Progress.NONE);
        Manifest replaced = catalog().readyManifest(id("tiny"));
        assertThat(replaced.file("config.json").orElseThrow().version()).as("config.json written again").isEqualTo(replaced.version());
        for (StoredFile file : catalog().files(replaced)) {
            ObjectMeta object = file.object().orElseThrow();
            assertThat(object.replicas()).as(file.path()).isEqualTo(3);
            assertThat(object.autoReplicas()).as(file.path()).isTrue();
        }
    }

    @Test
    void aReplaceWithACountWritesTheFilesThatChangedWithItAndLeavesTheOthersCounts() throws Exception {
        importSource("tiny");
        editJson(source.resolve("config.json"));
        new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r2", source, 3, true, 1), Progress.NONE);
        Manifest replaced = catalog().readyManifest(id("tiny"));
        for (StoredFile file : catalog().files(replaced)) {
            assertThat(file.object().orElseThrow().replicas()).as(file.path()).isEqualTo(file.path().equals("config.json") ? 3 : replicas());
        }
    }

    @Test
    void replicateIsRefusedWhileAnImportHoldsTheCheckpointsLockAndChangesNoCount() throws Exception {
        importSource("tiny");
        String lock = Catalog.lockName(id("tiny"));
        String importer = LockOwner.current("import").toString();
        assertThat(store.tryLock(lock, importer, CatalogLock.TTL).held()).isTrue();
        assertCheckpointError(() -> new CheckpointReplicator(catalog()).run(id("tiny"), Optional.of(3), false),
                CheckpointException.Code.LOCKED, "locked by " + importer);
        store.releaseLock(lock, importer);
        for (StoredFile file : catalog().files(catalog().readyManifest(id("tiny")))) {
            assertThat(file.object().orElseThrow().replicas()).as(file.path()).isEqualTo(replicas());
        }
    }
}
