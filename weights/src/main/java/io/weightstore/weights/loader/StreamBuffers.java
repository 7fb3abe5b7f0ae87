package io.weightstore.weights.loader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** The two halves a {@link TensorStream} reads into, lent by a {@link StreamBufferPool}. */
final class StreamBuffers implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] halves = new MemorySegment[2];
    private final long halfBytes;

    StreamBuffers(long halfBytes, long alignment) {
        this.halfBytes = halfBytes;
        for (int i = 0; i < 2; i++) {
            halves[i] = arena.allocate(halfBytes, alignment);
        }
    }

    long halfBytes() {
        return halfBytes;
    }

    MemorySegment half(int index) {
        return halves[index];
    }

    @Override
    public void close() {
        arena.close();
    }
}
