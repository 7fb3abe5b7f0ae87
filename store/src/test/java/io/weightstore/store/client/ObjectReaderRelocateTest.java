package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.embedded.EmbeddedStore;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * After every replica of a piece failed, a reader asks the master once where the object is now (a node
 * may be back on another port), unless another thread already did since the failed attempt began.
 */
class ObjectReaderRelocateTest {
    @TempDir
    Path tmp;

    private final Arena arena = Arena.ofShared();
    private StoreClient store;
    private ObjectReader reader;

    @BeforeEach
    void open() throws Exception {
        store = EmbeddedStore.open(tmp, 16L << 20, ClientOptions.defaults());
        store.put("k", arena.allocate(1 << 20), PutOptions.defaults());
        reader = store.open("k");
    }

    @AfterEach
    void close() {
        reader.close();
        store.close();
        arena.close();
    }

    @Test
    void aLeaseRenewedDuringTheFailedAttemptDoesNotCountAsAskingAgain() throws Exception {
        Located failedWith = reader.located();
        store.leases().renew(List.of(reader), Long.MAX_VALUE);
        assertThat(reader.located()).as("renewed: the same placement under a renewed lease").isNotSameAs(failedWith)
                .extracting(Located::object).isSameAs(failedWith.object());
        reader.relocate(failedWith);
        assertThat(reader.located().object()).as("placement asked of the master again").isNotSameAs(failedWith.object());
    }

    @Test
    void aPlacementAnotherThreadFetchedSinceIsNotFetchedAgain() throws Exception {
        Located failedWith = reader.located();
        reader.relocate(failedWith);
        Located refreshed = reader.located();
        reader.relocate(failedWith);
        assertThat(reader.located()).isSameAs(refreshed);
    }
}
