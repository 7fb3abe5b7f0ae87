package io.weightstore.weights;

import io.weightstore.format.ByteRangeSource;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** An open stored object as a {@link ByteRangeSource}: safetensors headers are read with two small range reads. */
public final class StoreRangeSource implements ByteRangeSource {
    private final ObjectReader object;

    public StoreRangeSource(ObjectReader object) {
        this.object = object;
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
        int position = dst.position();
        object.read(new Range(offset, dst.remaining()), MemorySegment.ofBuffer(dst));
        dst.position(position + dst.remaining());
    }
}
