package io.weightstore.weights.loader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The two halves a {@link TensorStream} reads into. A {@link CheckpointSource} keeps them for its
 * next stream, so memory is touched once per source rather than once per stream: on these VMs a
 * first touch costs about 3 us per 4 KiB page (0.4 s for the default 512 MiB), more than reading a
 * tensor-parallel rank's share of a small checkpoint.
 */
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
