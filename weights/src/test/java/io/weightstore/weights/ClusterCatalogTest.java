package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.util.List;
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

    @Test
    void verifyReportsAFileWithACorruptByteAsCorrupt() throws Exception {
        new CheckpointImporter(catalog()).run(new ImportRequest(id("rot"), "org/tiny", "main", source, 1, false, 2), Progress.NONE);
        Manifest manifest = catalog().readyManifest(id("rot"));
        ManifestFile weight = manifest.files().stream().filter(ManifestFile::isWeight).findFirst().orElseThrow();
        String path = weight.path();
        String key = catalog().file(manifest, weight).key();
        cluster.flipByte(key, 0, 5000);
        List<FileVerdict> verdicts = new CheckpointVerifier(catalog()).run(id("rot"), false, b -> {});
        assertThat(verdicts).filteredOn(v -> v.path().equals(path)).singleElement().satisfies(v -> {
            assertThat(v.status()).isEqualTo(FileVerdict.Status.CORRUPT);
            assertThat(v.detail()).contains("checksum mismatch");
        });
        assertThat(verdicts).filteredOn(v -> !v.path().equals(path)).allSatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.OK));
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
        List<FileVerdict> verdicts = new CheckpointVerifier(catalog()).run(id("down"), true, b -> {});
        assertThat(verdicts).anySatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.MISSING));
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
            assertThat(new CheckpointVerifier(catalog()).run(id("busy"), false, Progress.NONE))
                    .allSatisfy(v -> assertThat(v.status()).isEqualTo(FileVerdict.Status.OK));
            new CheckpointRemover(catalog()).run(id("busy"), true);
        }
        assertThat(store.list("weights/busy/")).isEmpty();
    }

}
