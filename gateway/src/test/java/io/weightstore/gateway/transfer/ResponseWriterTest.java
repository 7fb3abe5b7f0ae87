package io.weightstore.gateway.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ResponseWriterTest {
    /** A response stream that records the size of each write. */
    private static final class Recording extends ByteArrayOutputStream {
        final List<Integer> writes = new ArrayList<>();

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            writes.add(len);
            super.write(b, off, len);
        }
    }

    private static byte[] random(int size) {
        byte[] data = new byte[size];
        new Random(3).nextBytes(data);
        return data;
    }

    @Test
    void aChunkGoesOutAsASmallFirstWriteThenWritesTheJdkSocketTakesWhole() throws IOException {
        byte[] data = random(300_000);
        Recording out = new Recording();
        ResponseWriter writer = new ResponseWriter(out);
        writer.write(data, 299_000);
        assertThat(out.writes).containsExactly(ResponseWriter.FIRST_WRITE_BYTES, ResponseWriter.WRITE_BYTES, ResponseWriter.WRITE_BYTES,
                299_000 - ResponseWriter.FIRST_WRITE_BYTES - 2 * ResponseWriter.WRITE_BYTES);
        assertThat(writer.written()).isEqualTo(299_000);
        assertThat(out.toByteArray()).isEqualTo(Arrays.copyOf(data, 299_000));
    }

    @Test
    void offHeapBytesGoOutThroughAScratchSmallerThanAWrite() throws IOException {
        byte[] data = random(200_000);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offHeap = arena.allocate(data.length).copyFrom(MemorySegment.ofArray(data));
            Recording out = new Recording();
            ResponseWriter writer = new ResponseWriter(out);
            writer.write(offHeap.asSlice(0, 100_000), new byte[64 << 10]);
            writer.write(offHeap.asSlice(100_000), new byte[64 << 10]);
            assertThat(out.writes).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(64 << 10));
            assertThat(out.writes.getFirst()).isEqualTo(ResponseWriter.FIRST_WRITE_BYTES);
            assertThat(writer.written()).isEqualTo(200_000);
            assertThat(out.toByteArray()).isEqualTo(data);
        }
    }
}
