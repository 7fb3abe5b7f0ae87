package io.weightstore.weights;

import static io.weightstore.weights.CatalogContract.assertCheckpointError;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.weights.testing.FileSha256;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.weights.testing.HubCacheLayout;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An import of a snapshot in the Hugging Face hub cache: its links into the repository's blobs, and the digests that name them. */
class HubCacheImportTest {
    @TempDir
    Path tmp;

    private StoreClient store;
    private Path snapshot;
    /** The snapshot's first weight file. */
    private String shard;

    @BeforeEach
    void open() throws IOException {
        store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
        Path checkpoint = tmp.resolve("download");
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.BF16, 5), checkpoint, b -> {});
        snapshot = HubCacheLayout.write(checkpoint, tmp.resolve("hub"), "acme/tiny-llama", "5f1e0c2");
        try (Stream<Path> files = Files.list(snapshot)) {
            shard = files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".safetensors")).sorted().findFirst().orElseThrow();
        }
    }

    @AfterEach
    void close() {
        store.close();
    }

    private ImportResult importSnapshot(String id, Progress progress) throws IOException {
        return new CheckpointImporter(new Catalog(store)).run(new ImportRequest(CheckpointId.of(id), "acme/tiny-llama", "5f1e0c2",
                snapshot, 1, false, 1), progress);
    }

    @Test
    void aSnapshotsFilesAreStoredUnderTheirNamesWithTheBytesOfTheirBlobs() throws Exception {
        Manifest manifest = importSnapshot("tiny", Progress.NONE).manifest();

        assertThat(manifest.status()).isEqualTo(CheckpointStatus.READY);
        assertThat(manifest.files()).extracting(ManifestFile::path).contains("config.json", shard);
        for (ManifestFile file : manifest.files()) {
            assertThat(file.sha256()).as(file.path()).isEqualTo(FileSha256.of(HubCacheLayout.blob(snapshot, file.path())));
        }
        assertThat(manifest.file(shard).orElseThrow().sha256()).as("the shard's blob is named by its SHA-256")
                .isEqualTo(HubCacheLayout.blob(snapshot, shard).getFileName().toString());
    }

    @Test
    void aBlobWhoseBytesDoNotHashToItsNameFailsTheImportAndLeavesNothingReady() throws Exception {
        Path blob = HubCacheLayout.blob(snapshot, shard);
        CatalogContract.flipLastByte(blob);

        assertCheckpointError(() -> importSnapshot("tiny", Progress.NONE), CheckpointException.Code.CORRUPT,
                shard + " is corrupt: its blob " + blob + " is named by the SHA-256 the hub gave it, but its bytes hash to "
                        + FileSha256.of(blob) + "; download it again (hf download acme/tiny-llama " + shard + " --revision"
                        + " 5f1e0c2 --cache-dir " + tmp.resolve("hub").toRealPath() + " --force-download)");
        assertThat(new Catalog(store).manifest(CheckpointId.of("tiny")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
        assertThat(store.list("weights/tiny/files/")).as("what the failed run sent, freed").isEmpty();
    }

    @Test
    void aSmallFilesBlobWhoseBytesAreNotItsGitBlobFailsTheImportAndLeavesNothingReady() throws Exception {
        Path blob = HubCacheLayout.blob(snapshot, "tokenizer.json");
        assertThat(blob.getFileName().toString()).as("named as the hub names it")
                .isEqualTo(GitBlobId.of(MemorySegment.ofArray(Files.readAllBytes(blob))));
        CatalogContract.flipLastByte(blob);

        assertCheckpointError(() -> importSnapshot("tiny", Progress.NONE), CheckpointException.Code.CORRUPT,
                "tokenizer.json is corrupt: its blob " + blob + " is named by the Git blob id the hub gave it, but its bytes hash to "
                        + GitBlobId.of(MemorySegment.ofArray(Files.readAllBytes(blob))) + "; download it again (hf download acme/tiny-llama"
                        + " tokenizer.json --revision 5f1e0c2 --cache-dir " + tmp.resolve("hub").toRealPath() + " --force-download), or, if"
                        + " it was changed on purpose, import a plain copy of the snapshot (cp -rL " + snapshot + " DIR), which records no hub"
                        + " commit");
        assertThat(new Catalog(store).manifest(CheckpointId.of("tiny")).orElseThrow().status()).isEqualTo(CheckpointStatus.FAILED);
        assertThat(store.list("weights/tiny/files/")).as("what the failed run sent, freed").isEmpty();
    }

    @Test
    void aLinkPointedElsewhereAfterValidationDoesNotChangeWhatIsStored() throws Exception {
        Path validated = HubCacheLayout.blob(snapshot, shard);
        String validatedSha256 = FileSha256.of(validated);
        // The same size and header, other bytes: what the checks made against the file as it was validated cannot tell apart.
        Path other = Files.copy(validated, tmp.resolve("other.safetensors"));
        CatalogContract.flipLastByte(other);
        // The files go one at a time in the order of their names: config.json, read first, is sent before the shard is opened.
        Progress repointOnce = CatalogContract.onFirstBytes(() -> {
            Files.delete(snapshot.resolve(shard));
            Files.createSymbolicLink(snapshot.resolve(shard), other);
        });

        Manifest manifest = importSnapshot("tiny", repointOnce).manifest();

        assertThat(manifest.file(shard).orElseThrow().sha256()).isEqualTo(validatedSha256);
        assertThat(FileSha256.of(other)).isNotEqualTo(validatedSha256);
    }
}
