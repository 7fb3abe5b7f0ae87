package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.embedded.EmbeddedStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Objects opened together, as a checkpoint's files are: a call to the master per 64, all or nothing, and closed together. */
class OpenAllTest {
    @TempDir
    Path tmp;

    private StoreClient store;

    @BeforeEach
    void open() throws StoreException {
        store = EmbeddedStore.open(tmp, 16L << 20, ClientOptions.defaults());
    }

    @AfterEach
    void close() {
        store.close();
    }

    private List<String> put(int count) throws IOException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add("f/" + i);
            store.put("f/" + i, new byte[] {(byte) i, (byte) (i >> 8)}, PutOptions.defaults());
        }
        return keys;
    }

    private void assertLeased(String key) {
        assertThatThrownBy(() -> store.remove(key, false)).as(key).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
    }

    @Test
    void moreObjectsThanOneCallTakesOpenInTheKeysOrderAndCloseTogether() throws Exception {
        int count = MasterApi.MAX_LEASES_PER_CALL * 2 + 3;
        List<String> keys = put(count).reversed();
        List<ObjectReader> readers = store.openAll(keys);
        assertThat(readers).extracting(ObjectReader::key).containsExactlyElementsOf(keys);
        try (Arena arena = Arena.ofConfined()) {
            for (ObjectReader reader : readers) {
                MemorySegment bytes = arena.allocate(2);
                reader.read(new Range(0, 2), bytes);
                int i = Integer.parseInt(reader.key().substring(2));
                assertThat(bytes.toArray(ValueLayout.JAVA_BYTE)).as(reader.key()).containsExactly((byte) i, (byte) (i >> 8));
            }
        }
        keys.forEach(this::assertLeased);
        ObjectReader.closeAll(readers);
        for (String key : keys) {
            store.remove(key, false);
        }
        assertThatThrownBy(() -> readers.getFirst().read(new Range(0, 1), MemorySegment.ofArray(new byte[1])))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void aKeyWithNoObjectInALaterCallEndsTheLeasesOfTheEarlierOnes() throws Exception {
        List<String> keys = new ArrayList<>(put(MasterApi.MAX_LEASES_PER_CALL + 1));
        keys.add("f/missing");
        assertThatThrownBy(() -> store.openAll(keys)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.NOT_FOUND))
                .hasMessageContaining("f/missing");
        for (String key : keys.subList(0, keys.size() - 1)) {
            store.remove(key, false);
        }
    }

    /** The lease keeper renews the leases due together, a call per 64: none runs out while its reader is open. */
    @Test
    void leasesOfMoreReadersThanOneCallTakesAreRenewedUntilClosed() throws Exception {
        try (StoreClient shortLeases = EmbeddedStore.open(tmp.resolve("short"), 16L << 20,
                ClientOptions.defaults().withLeaseDuration(Duration.ofMillis(400)))) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < MasterApi.MAX_LEASES_PER_CALL + 6; i++) {
                keys.add("g/" + i);
                shortLeases.put("g/" + i, new byte[] {1}, PutOptions.defaults());
            }
            List<ObjectReader> readers = shortLeases.openAll(keys);
            Thread.sleep(1_500);
            for (String key : keys) {
                assertThatThrownBy(() -> shortLeases.remove(key, false)).as(key)
                        .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.FAILED_PRECONDITION));
            }
            ObjectReader.closeAll(readers);
            for (String key : keys) {
                shortLeases.remove(key, false);
            }
        }
    }

    @Test
    void closingTogetherPassesOverReadersClosedAlready() throws Exception {
        List<String> keys = put(3);
        List<ObjectReader> readers = store.openAll(keys);
        readers.get(1).close();
        store.remove("f/1", false);
        ObjectReader.closeAll(readers);
        ObjectReader.closeAll(readers);
        store.remove("f/0", false);
        store.remove("f/2", false);
    }
}
