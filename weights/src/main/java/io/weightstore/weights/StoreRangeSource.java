package io.weightstore.weights;

import io.weightstore.format.ByteRangeSource;
import io.weightstore.store.Range;
import io.weightstore.store.StoreClient;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;

/** A stored object as a {@link ByteRangeSource}: safetensors headers are read with two small range reads. */
public final class StoreRangeSource implements ByteRangeSource {
    private final StoreClient store;
    private final String key;
    private final long length;

    public StoreRangeSource(StoreClient store, String key, long length) {
        this.store = store;
        this.key = key;
        this.length = length;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
        if (offset < 0 || offset + dst.remaining() > length) {
            throw new EOFException("read past end of " + key + ": offset=" + offset + " length=" + dst.remaining() + " size=" + length);
        }
        int position = dst.position();
        store.readInto(key, List.of(new Range(offset, dst.remaining())), MemorySegment.ofBuffer(dst));
        dst.position(position + dst.remaining());
    }
}
