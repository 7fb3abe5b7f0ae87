package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an import records of each file (size, SHA-256, block checksum digest, CRC table digest), for a
 * synthetic checkpoint whose bytes are fixed by its seed, is pinned to what the importer recorded
 * before it was made faster: a change in how the bytes are read and hashed must not change one digest.
 * Only the safetensors files are pinned: they carry every kind of digest, and their bytes depend on
 * the seed alone, where the synthetic JSON files come out of maps whose order may vary between JVMs.
 * The CRC tables' digests were pinned again once, when tables came to record their header's CRC too.
 */
class ImportedManifestIsPinnedTest {
    private static final String PINNED = "pinned-import-manifest-files.json";

    @TempDir
    Path tmp;

    @Test
    void importOfAFixedCheckpointRecordsThePinnedDigestsOfEveryFile() throws Exception {
        Path source = tmp.resolve("source");
        // Shards of a few MiB: several files, each larger than the 1 MiB checksum block and any read chunk.
        SyntheticCheckpoint.write(SynthSpec.forSize(12 << 20, DType.BF16, 4 << 20, 5), source, b -> {});
        List<ManifestFile> files;
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults())) {
            files = new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId("pinned"), "org/pinned",
                    "main", source, 1, false, 2), Progress.NONE).manifest().files().stream()
                    .filter(ManifestFile::isSafetensors).toList();
        }
        String recorded = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(files) + "\n";
        assertThat(recorded).isEqualTo(pinned());
    }

    private static String pinned() throws Exception {
        try (InputStream in = ImportedManifestIsPinnedTest.class.getResourceAsStream(PINNED)) {
            return in == null ? "(no " + PINNED + ")" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
