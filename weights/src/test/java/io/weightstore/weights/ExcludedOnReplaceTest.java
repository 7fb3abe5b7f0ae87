package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The patterns an import left files out by are the checkpoint's: a replace given none leaves the same files out. */
class ExcludedOnReplaceTest {
    @TempDir
    Path tmp;

    private StoreClient store;
    private Path source;

    @BeforeEach
    void open() throws IOException {
        store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
        source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 9), source, b -> {});
        Files.createDirectories(source.resolve("original"));
        Files.write(source.resolve("original/consolidated.00.pth"), new byte[64 << 10]);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private Manifest run(boolean replace, Optional<List<String>> exclude) throws IOException {
        return new CheckpointImporter(new Catalog(store)).run(new ImportRequest(CheckpointId.of("tiny"), "org/tiny", "main", source,
                OptionalInt.empty(), replace, 2, exclude), Progress.NONE).manifest();
    }

    @Test
    void aReplaceGivenNoPatternsLeavesOutWhatTheVersionBeforeLeftOut() throws Exception {
        Manifest first = run(false, Optional.of(List.of("original/")));
        Files.writeString(source.resolve("config.json"), Files.readString(source.resolve("config.json")).replaceFirst("\\{",
                "{\"edited\": true, "));

        Manifest replaced = run(true, Optional.empty());

        assertThat(first.excluded()).containsExactly("original/");
        assertThat(replaced.version()).isEqualTo(1);
        assertThat(replaced.excluded()).containsExactly("original/");
        assertThat(replaced.file("original/consolidated.00.pth")).isEmpty();
        assertThat(new Catalog(store).readyManifest(CheckpointId.of("tiny"))).isEqualTo(replaced);
    }

    @Test
    void aReplaceGivenNoPatternsExplicitlyStoresEveryFile() throws Exception {
        run(false, Optional.of(List.of("original/")));

        Manifest replaced = run(true, Optional.of(List.of()));

        assertThat(replaced.excluded()).isEmpty();
        assertThat(replaced.file("original/consolidated.00.pth")).isPresent();
    }

    @Test
    void aManifestThatLeftNothingOutSaysNothingAboutIt() throws Exception {
        Manifest manifest = run(false, Optional.empty());

        assertThat(manifest.excluded()).isEmpty();
        assertThat(new String(manifest.toJson(), StandardCharsets.UTF_8)).doesNotContain("excluded");
    }
}
