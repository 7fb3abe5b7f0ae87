package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.Manifest;
import io.weightstore.weights.ManifestFile;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A load that read the manifest a moment before a replace of its checkpoint became READY, and then
 * finds the files it was opening removed: the race of a fleet loading a model while it is rolled out.
 */
class LoadAcrossAReplaceTest {
    private static final CheckpointId ID = new CheckpointId("tiny");

    @TempDir
    Path tmp;

    private StoreClient store;
    private Catalog catalog;
    private Manifest first;

    @BeforeEach
    void importFirstVersion() throws Exception {
        store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
        catalog = new Catalog(store);
        first = importVersion("r1", 1, false);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    /** Imports a synthetic checkpoint whose weights come from {@code seed}. */
    private Manifest importVersion(String revision, long seed, boolean replace) throws Exception {
        Path source = tmp.resolve(revision);
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, seed), source, b -> {});
        return new CheckpointImporter(catalog).run(new ImportRequest(ID, "org/tiny", revision, source, 1, replace, 1), Progress.NONE)
                .manifest();
    }

    @Test
    void aLoadThatFindsItsFilesRemovedByAReplaceOpensAndLoadsTheNewVersion() throws Exception {
        Manifest second = importVersion("r2", 2, true);
        ManifestFile weights = first.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        assertThat(store.find(catalog.file(first, weights).key())).as("the first version's file, removed by the replace").isEmpty();

        try (CheckpointSource source = CheckpointSource.openFrom(store, first, LoadOptions.defaults())) {
            assertThat(source.manifest()).isEqualTo(second);
            LoadReport report = source.load(0, 1, ShardPlan.preset("llama"), tensor -> {}, Progress.NONE);
            assertThat(report.tensors()).isPositive();
            assertThat(report.clientChecked() + report.nodeChecked()).as("every tensor checked against the new version's CRCs")
                    .isEqualTo(report.tensors());
        }
    }

    @Test
    void aFileGoneWhileItsManifestStandsFailsTheLoadNamingIt() throws Exception {
        ManifestFile weights = first.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        store.remove(catalog.file(first, weights).key(), true);

        assertThatThrownBy(() -> CheckpointSource.openFrom(store, first, LoadOptions.defaults()))
                .hasMessageContaining(catalog.file(first, weights).key());
    }
}
