package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EmbeddedCatalogTest extends CatalogContract {
    private StoreClient store;

    @BeforeEach
    void open() throws StoreException {
        store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Override
    StoreClient store() {
        return store;
    }

    /**
     * The room a replace needs, on one pool that fills to the byte (nodes would leave fragments): a file
     * at the same size may be kept, so only what is new or changed in size is refused up front, and a
     * replace whose same-size files did change runs out of room on the way, the version before whole.
     */
    @Test
    void aReplaceWithNoRoomBesideTheOldFilesFailsOnTheWayAndLeavesTheVersionBeforeWhole() throws Exception {
        Manifest first = importSource("tiny").manifest();
        Path shard = largestSourceFile();
        fillAllButHalfOf(shard);
        // Same size, other bytes, as a fine-tune of the same shapes: its new copy needs room while the old one is still there.
        flipLastByte(shard);

        assertThatThrownBy(() -> replaceTiny("r2", Progress.NONE)).isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(StoreException.Code.NO_SPACE));
        assertThat(catalog().readyManifest(id("tiny"))).as("the version before, untouched").isEqualTo(first);
        assertThat(store().list("weights/tiny/v1/")).as("what the replace sent, freed").isEmpty();
        CheckpointVerifier.Report verified = new CheckpointVerifier(catalog()).run(id("tiny"), CheckpointVerifier.Mode.FULL, b -> {});
        assertThat(verified.ok()).as(verified.toString()).isTrue();
    }

    @Test
    void aReplaceWhoseNewFilesCannotFitIsRefusedBeforeAnythingIsWritten() throws Exception {
        Manifest first = importSource("tiny").manifest();
        Path shard = largestSourceFile();
        fillAllButHalfOf(shard);
        Files.write(source.resolve("notes.bin"), new byte[Math.toIntExact(Files.size(shard))]);

        assertCheckpointError(() -> replaceTiny("r2", Progress.NONE), CheckpointException.Code.NO_SPACE, "nothing was written");
        assertThat(catalog().readyManifest(id("tiny"))).isEqualTo(first);
        assertThat(catalog().storedReplacement(id("tiny"))).isEmpty();
    }

    /** An import run again counts against the room only what no earlier run of its version stored (one listing, not a call per file). */
    @Test
    void anImportRunAgainNeedsRoomOnlyForWhatItHasNotStoredYet() throws Exception {
        Manifest ready = importSource("tiny").manifest();
        ManifestRewrites.write(store(), ready.withStatus(CheckpointStatus.IMPORTING, Catalog.now(), null));
        fillAllButHalfOf(largestSourceFile());

        ImportResult again = importSource("tiny");

        assertThat(again.uploadedFiles()).isZero();
        assertThat(again.manifest().status()).isEqualTo(CheckpointStatus.READY);
    }

    private Path largestSourceFile() throws IOException {
        try (var files = Files.list(source)) {
            return files.max(Comparator.comparingLong(f -> f.toFile().length())).orElseThrow();
        }
    }

    /** Fills the store, pinned, to leave room for half of {@code file}. */
    private void fillAllButHalfOf(Path file) throws IOException {
        try (Arena arena = Arena.ofShared()) {
            Room room = store().room();
            long fill = (room.capacity() - room.used() - Files.size(file) / 2) / 4096 * 4096;
            store().put("filler", arena.allocate(fill), PutOptions.defaults().withPin(true).withSliceSize(1 << 20));
        }
    }
}
