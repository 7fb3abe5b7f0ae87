package io.weightstore.store.wire;

import java.nio.ByteBuffer;

/** Moving bytes between the buffers a secured transport keeps and its caller's. */
final class ByteBuffers {
    private ByteBuffers() {}

    /** Copies what fits of {@code from} into {@code dst}, advancing both; returns the bytes moved. */
    static int drain(ByteBuffer from, ByteBuffer dst) {
        int n = Math.min(from.remaining(), dst.remaining());
        dst.put(dst.position(), from, from.position(), n);
        dst.position(dst.position() + n);
        from.position(from.position() + n);
        return n;
    }
}
