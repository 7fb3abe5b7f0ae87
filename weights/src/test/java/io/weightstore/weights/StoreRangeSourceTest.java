package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stored object read by range, with a prefix of it read before: ranges within the prefix come from it, others from the store. */
class StoreRangeSourceTest {
    @TempDir
    Path tmp;

    private StoreClient store;
    private ObjectReader object;

    @BeforeEach
    void open() throws Exception {
        store = EmbeddedStore.open(tmp, 16L << 20, ClientOptions.defaults());
        byte[] bytes = new byte[32];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        store.put("o", bytes, PutOptions.defaults());
        object = store.open("o");
    }

    @AfterEach
    void close() {
        object.close();
        store.close();
    }

    private static byte[] read(StoreRangeSource source, long offset, int length) throws Exception {
        ByteBuffer dst = ByteBuffer.allocate(length + 2).position(1).limit(length + 1);
        source.readFully(offset, dst);
        assertThat(dst.position()).as("filled to its limit").isEqualTo(length + 1);
        byte[] read = new byte[length];
        dst.get(1, read);
        return read;
    }

    @Test
    void rangesWithinThePrefixComeFromItAndTheRestFromTheStore() throws Exception {
        // Bytes other than the object's, so that where each answer came from shows.
        StoreRangeSource source = new StoreRangeSource(object, new byte[] {100, 101, 102, 103, 104, 105, 106, 107});
        assertThat(read(source, 0, 8)).containsExactly(100, 101, 102, 103, 104, 105, 106, 107);
        assertThat(read(source, 6, 2)).containsExactly(106, 107);
        assertThat(read(source, 6, 4)).containsExactly(6, 7, 8, 9);
        assertThat(read(source, 30, 2)).containsExactly(30, 31);
        assertThat(source.length()).isEqualTo(32);
    }

    @Test
    void withoutAPrefixEveryRangeComesFromTheStore() throws Exception {
        assertThat(read(new StoreRangeSource(object), 0, 4)).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aRangePastTheEndIsEofAndAPrefixLongerThanTheObjectIsRefused() {
        assertThatThrownBy(() -> read(new StoreRangeSource(object, new byte[4]), 30, 4)).isInstanceOf(EOFException.class)
                .hasMessageContaining("offset=30 length=4 size=32");
        assertThatThrownBy(() -> new StoreRangeSource(object, new byte[33])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix of 33 bytes is longer than o of 32 bytes");
    }
}
