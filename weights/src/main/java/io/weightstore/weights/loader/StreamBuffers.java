package io.weightstore.weights.loader;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.AnonymousMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The two halves a {@link TensorStream} reads into, lent by a {@link StreamBufferPool}: memory from
 * the kernel in huge pages, neither cleared twice nor counted against the JVM's direct-memory limit
 * (see {@link AnonymousMemory}; where native access is denied, {@code Arena} memory, with both), so
 * that streams open at once each take theirs without the limit refusing one.
 */
final class StreamBuffers implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] halves = new MemorySegment[2];
    private final long halfBytes;
    /** Advised to the kernel since it was last lent; guarded by the pool that keeps it. */
    private boolean reclaimable;

    StreamBuffers(long halfBytes) throws StoreException {
        this.halfBytes = halfBytes;
        try {
            for (int i = 0; i < 2; i++) {
                halves[i] = AnonymousMemory.allocate(halfBytes, arena);
            }
        } catch (StoreException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    long halfBytes() {
        return halfBytes;
    }

    MemorySegment half(int index) {
        return halves[index];
    }

    /** Idle until the next stream borrows it: the kernel's to take back if it runs short of memory meanwhile. */
    void markReclaimable() {
        for (MemorySegment half : halves) {
            AnonymousMemory.reclaimable(half);
        }
        reclaimable = true;
    }

    boolean reclaimable() {
        return reclaimable;
    }

    /** Lent to a stream, which writes its pages again. */
    void inUse() {
        reclaimable = false;
    }

    @Override
    public void close() {
        arena.close();
    }
}
