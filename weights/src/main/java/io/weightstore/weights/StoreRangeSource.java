package io.weightstore.weights;

import io.weightstore.format.ByteRangeSource;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * An open stored object as a {@link ByteRangeSource}: safetensors headers are read with two small
 * range reads, or with none from a prefix of the object read before (many files' headers in one
 * scatter-gather read, at the lengths a manifest recorded).
 */
public final class StoreRangeSource implements ByteRangeSource {
    private final ObjectReader object;
    private final ByteBuffer prefix;

    public StoreRangeSource(ObjectReader object) {
        this(object, new byte[0]);
    }

    /** As above, answering ranges within the object's first {@code prefix.length} bytes, which {@code prefix} holds, from it. */
    public StoreRangeSource(ObjectReader object, byte[] prefix) {
        if (prefix.length > object.size()) {
            throw new IllegalArgumentException("prefix of " + prefix.length + " bytes is longer than " + object.key() + " of "
                    + object.size() + " bytes");
        }
        this.object = object;
        this.prefix = ByteBuffer.wrap(prefix).asReadOnlyBuffer();
    }

    @Override
    public long length() {
        return object.size();
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
        if (offset < 0 || offset + dst.remaining() > object.size()) {
            throw new EOFException("read past end of " + object.key() + ": offset=" + offset + " length=" + dst.remaining()
                    + " size=" + object.size());
        }
        if (offset + dst.remaining() <= prefix.capacity()) {
            dst.put(prefix.slice((int) offset, dst.remaining()));
            return;
        }
        int position = dst.position();
        object.read(new Range(offset, dst.remaining()), MemorySegment.ofBuffer(dst));
        dst.position(position + dst.remaining());
    }
}
