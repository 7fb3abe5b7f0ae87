package io.weightstore.gateway.transfer;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Writes a response body to Helidon's response stream, the only supported way to a connection's
 * socket (it takes heap arrays, and hands each to the socket's stream as it is), in the write sizes
 * that cost the fewest copies on the way.
 */
public final class ResponseWriter {
    /**
     * Largest write. The JDK's socket stream copies each write into a temporary direct buffer of at
     * most 128 KiB, and copies what a full socket did not take again on the next try, so a larger
     * write costs more copies; a write this size mostly goes at once, and stays in the core's cache
     * from the copy before it to the JDK's.
     */
    static final int WRITE_BYTES = 128 << 10;
    /**
     * The response's first write. Helidon copies the first write into one buffer with the headers, to
     * send both in one packet; a small first write keeps that copy small.
     */
    static final int FIRST_WRITE_BYTES = 1 << 10;

    private final OutputStream out;
    private long written;

    /** Writes to {@code out}, a response stream whose status and headers are set. */
    public ResponseWriter(OutputStream out) {
        this.out = out;
    }

    /** Bytes written so far. */
    public long written() {
        return written;
    }

    /** Writes the first {@code length} bytes of {@code chunk}. */
    public void write(byte[] chunk, int length) throws IOException {
        if (length < 0 || length > chunk.length) {
            throw new IllegalArgumentException("length=" + length + " must be within the chunk of " + chunk.length + " bytes");
        }
        for (int done = 0; done < length; ) {
            int n = Math.min(length - done, nextWrite());
            out.write(chunk, done, n);
            done += n;
            written += n;
        }
    }

    /**
     * Writes {@code bytes}, off-heap memory such as a pool mapped in place, a write at a time through
     * {@code scratch}: each piece is copied there just before the stream copies it on, while both
     * copies hit the cache.
     */
    public void write(MemorySegment bytes, byte[] scratch) throws IOException {
        if (scratch.length == 0) {
            throw new IllegalArgumentException("scratch=0 bytes cannot carry a write");
        }
        for (long done = 0; done < bytes.byteSize(); ) {
            int n = (int) Math.min(bytes.byteSize() - done, Math.min(nextWrite(), scratch.length));
            MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, done, scratch, 0, n);
            out.write(scratch, 0, n);
            done += n;
            written += n;
        }
    }

    private int nextWrite() {
        return written == 0 ? FIRST_WRITE_BYTES : WRITE_BYTES;
    }
}
