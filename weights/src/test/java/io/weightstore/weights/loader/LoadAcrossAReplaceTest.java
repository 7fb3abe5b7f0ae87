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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
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

    /**
     * Imports a synthetic checkpoint whose weights come from {@code seed}; its config (which names the
     * seed) is the first version's unless {@code configChanges}, when it also names {@code revision}.
     */
    private Manifest importVersion(String revision, long seed, boolean replace, boolean configChanges) throws Exception {
        Path source = tmp.resolve(revision);
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, seed), source, b -> {});
        Path config = source.resolve("config.json");
        if (configChanges) {
            Files.writeString(config, Files.readString(config).replaceFirst("\\{", "{\"revision\": \"" + revision + "\", "));
        } else if (replace) {
            Files.copy(tmp.resolve("r1").resolve("config.json"), config, StandardCopyOption.REPLACE_EXISTING);
        }
        return new CheckpointImporter(catalog).run(new ImportRequest(ID, "org/tiny", revision, source, 1, replace, 1), Progress.NONE)
                .manifest();
    }

    private Manifest importVersion(String revision, long seed, boolean replace) throws Exception {
        return importVersion(revision, seed, replace, false);
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
            // Read against the new version's CRC tables, or seen in place and checked against its blocks: none left to the nodes.
            assertThat(report.nodeChecked()).as("tensors no CRC of the new version checked").isZero();
            assertThat(report.clientChecked() + report.seenInPlace()).isEqualTo(report.tensors());
        }
    }

    /** Hands the metadata over, then replaces the checkpoint before the load opens its weight files. */
    private Consumer<CheckpointSource.Materialized> handOverThenReplace(List<CheckpointSource.Materialized> handedOver,
            boolean configChanges) {
        return materialized -> {
            handedOver.add(materialized);
            if (handedOver.size() == 1) {
                try {
                    importVersion("r2", 2, true, configChanges);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    @Test
    void metadataIsHandedOverOnceWhenOnlyTheWeightsChanged() throws Exception {
        List<CheckpointSource.Materialized> handedOver = new ArrayList<>();
        LoadOptions options = LoadOptions.defaults().withCacheDir(tmp.resolve("cache"));

        try (CheckpointSource source = CheckpointSource.openFrom(store, first, options, handOverThenReplace(handedOver, false))) {
            assertThat(source.manifest().version()).isEqualTo(1);
            assertThat(handedOver).as("the same config and tokenizer in both versions, handed over by the first attempt").hasSize(1);
        }
    }

    @Test
    void aReplaceThatChangedTheConfigIsOpenedWhenNoMetadataWasHandedOverYet() throws Exception {
        Manifest second = importVersion("r2", 2, true, true);
        List<CheckpointSource.Materialized> handedOver = new ArrayList<>();
        LoadOptions options = LoadOptions.defaults().withCacheDir(tmp.resolve("cache"));

        // The first version's config.json is gone, so its metadata cannot be written: nothing was handed over.
        try (CheckpointSource source = CheckpointSource.openFrom(store, first, options, handedOver::add)) {
            assertThat(source.manifest()).isEqualTo(second);
            assertThat(handedOver).hasSize(1);
            assertThat(Files.readString(tmp.resolve("cache").resolve("config.json"))).contains("\"revision\": \"r2\"");
        }
    }

    @Test
    void aReplaceThatChangedTheConfigAfterItWasHandedOverFailsTheLoadSayingToLoadAgain() {
        List<CheckpointSource.Materialized> handedOver = new ArrayList<>();
        LoadOptions options = LoadOptions.defaults().withCacheDir(tmp.resolve("cache"));

        assertThatThrownBy(() -> CheckpointSource.openFrom(store, first, options, handOverThenReplace(handedOver, true)))
                .hasMessageContaining("was replaced by version 1 while this load opened version 0")
                .hasMessageContaining("load it again");
        assertThat(handedOver).hasSize(1);
    }

    @Test
    void aFileGoneWhileItsManifestStandsFailsTheLoadNamingIt() throws Exception {
        ManifestFile weights = first.files().stream().filter(ManifestFile::isSafetensors).findFirst().orElseThrow();
        store.remove(catalog.file(first, weights).key(), true);

        assertThatThrownBy(() -> CheckpointSource.openFrom(store, first, LoadOptions.defaults()))
                .hasMessageContaining(catalog.file(first, weights).key());
    }
}
