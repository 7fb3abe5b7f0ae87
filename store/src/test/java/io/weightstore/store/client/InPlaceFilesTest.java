package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.pool.StitchedMapping;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InPlaceFilesTest {
    @TempDir
    Path tmp;

    private static void fill(PoolFile pool, long offset, int length, int seed) {
        MemorySegment data = pool.data();
        for (int i = 0; i < length; i++) {
            data.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 7));
        }
    }

    private static byte[] read(InPlaceFiles.FileRange range) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(range.length()));
        while (bytes.hasRemaining()) {
            if (range.file().read(bytes, range.position() + bytes.position()) < 0) {
                throw new EOFException(range.toString());
            }
        }
        return bytes.array();
    }

    @Test
    void rangesOfAnObjectOverTwoPoolsAreWhereItsPiecesLie() throws Exception {
        try (PoolFile first = PoolFile.openOrCreate(tmp.resolve("pool-a"), 1 << 20);
                PoolFile second = PoolFile.openOrCreate(tmp.resolve("pool-b"), 1 << 20)) {
            fill(first, 8192, 4096, 1);
            fill(second, 4096, 3000, 100);
            List<StitchedMapping.Piece> pieces = List.of(new StitchedMapping.Piece(first.path(), first.uuid(), 8192, 4096),
                    new StitchedMapping.Piece(second.path(), second.uuid(), 4096, 3000));
            try (InPlaceFiles files = InPlaceFiles.open(pieces)) {
                assertThat(files.size()).isEqualTo(7096);
                List<InPlaceFiles.FileRange> ranges = files.ranges(4000, 200);
                assertThat(ranges).hasSize(2);
                assertThat(ranges.get(0).position()).isEqualTo(PoolFile.DATA_START + 8192 + 4000);
                assertThat(ranges.get(0).length()).isEqualTo(96);
                assertThat(ranges.get(1).position()).isEqualTo(PoolFile.DATA_START + 4096);
                assertThat(ranges.get(1).length()).isEqualTo(104);
                byte[] expected = new byte[200];
                for (int i = 0; i < 96; i++) {
                    expected[i] = (byte) (1 + (4000 + i) * 7);
                }
                for (int i = 0; i < 104; i++) {
                    expected[96 + i] = (byte) (100 + i * 7);
                }
                byte[] actual = new byte[200];
                System.arraycopy(read(ranges.get(0)), 0, actual, 0, 96);
                System.arraycopy(read(ranges.get(1)), 0, actual, 96, 104);
                assertThat(actual).isEqualTo(expected);
                assertThatThrownBy(() -> files.ranges(7000, 200)).isInstanceOf(IndexOutOfBoundsException.class)
                        .hasMessageContaining("offset=7000 length=200");
            }
        }
    }

    @Test
    void aPoolFileThatIsNotThePoolTheMasterNamedIsRefused() throws Exception {
        try (PoolFile pool = PoolFile.openOrCreate(tmp.resolve("pool"), 1 << 20)) {
            UUID other = UUID.randomUUID();
            assertThatThrownBy(() -> InPlaceFiles.open(List.of(new StitchedMapping.Piece(pool.path(), other, 0, 4096))))
                    .isInstanceOf(StoreException.class).hasMessageContaining("is pool " + pool.uuid() + ", expected " + other);
        }
    }
}
