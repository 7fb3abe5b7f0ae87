package io.weightstore.format;

import java.io.EOFException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** Bytes already in memory (a mapped file, say) as a {@link ByteRangeSource}. */
public record SegmentRangeSource(MemorySegment bytes) implements ByteRangeSource {
    @Override
    public long length() {
        return bytes.byteSize();
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws EOFException {
        if (offset < 0 || offset > bytes.byteSize() - dst.remaining()) {
            throw new EOFException("range offset=" + offset + " length=" + dst.remaining() + " runs past the " + bytes.byteSize()
                    + " bytes there are");
        }
        dst.put(bytes.asSlice(offset, dst.remaining()).asByteBuffer());
    }
}
