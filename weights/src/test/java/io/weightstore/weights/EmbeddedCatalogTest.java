package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
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

    /** The room check is the importer's, the same on any store; one pool fills to the byte, where nodes would leave fragments. */
    @Test
    void aReplaceWithNoRoomBesideTheOldFilesIsRefusedBeforeAnythingIsWritten() throws Exception {
        importSource("tiny");
        Path shard;
        try (var files = Files.list(source)) {
            shard = files.max(Comparator.comparingLong(f -> f.toFile().length())).orElseThrow();
        }
        try (Arena arena = Arena.ofShared()) {
            Room room = store().room();
            long fill = (room.capacity() - room.used() - Files.size(shard) / 2) / 4096 * 4096;
            store().put("filler", arena.allocate(fill), PutOptions.defaults().withPin(true).withSliceSize(1 << 20));
        }
        // Same size, other bytes, as a fine-tune of the same shapes: its new copy needs room while the old one is still there.
        flipLastByte(shard);
        assertCheckpointError(() -> new CheckpointImporter(catalog()).run(new ImportRequest(id("tiny"), "org/tiny", "r2", source,
                replicas(), true, 1), Progress.NONE), CheckpointException.Code.NO_SPACE, "nothing was written");
        assertThat(catalog().readyManifest(id("tiny")).revision()).as("the version before, untouched").isEqualTo("r1");
    }
}
