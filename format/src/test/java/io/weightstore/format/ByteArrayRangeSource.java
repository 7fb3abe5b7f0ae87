package io.weightstore.format;

import java.io.EOFException;
import java.nio.ByteBuffer;

/** A file held in memory; records the largest single read so tests can bound what a parser asks for. */
final class ByteArrayRangeSource implements ByteRangeSource {
    private final byte[] bytes;
    private long largestRead;

    ByteArrayRangeSource(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public long length() {
        return bytes.length;
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws EOFException {
        largestRead = Math.max(largestRead, dst.remaining());
        if (offset < 0 || offset + dst.remaining() > bytes.length) {
            throw new EOFException("read past end: offset=" + offset + " length=" + dst.remaining() + " size=" + bytes.length);
        }
        dst.put(bytes, (int) offset, dst.remaining());
    }

    long largestRead() {
        return largestRead;
    }
}
