package io.weightstore.weights.loader;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.AnonymousMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Memory for the batches of a {@link TensorStream} that do not fit in a half (an embedding, an
 * LM head). The stream keeps the largest block given back for the next such batch: fresh memory
 * costs about 3 us per 4 KiB page to touch the first time here, 0.8 s for a 1 GiB embedding, and an
 * embedding and its LM head come in every checkpoint. Blocks are {@link AnonymousMemory}, as the
 * stream's halves are (cleared once, in huge pages). A block is allocated only when none is kept
 * that fits (a kept one too small is freed first), so this never holds more than the two oversized
 * batches a stream may have in flight at once.
 */
final class OversizeMemory implements AutoCloseable {
    /** One allocation, freed by closing its arena. */
    record Block(Arena arena, MemorySegment memory) {}

    private Block kept;
    private boolean closed;

    /** A block of at least {@code bytes}: the kept one if it is large enough, else a new one. */
    synchronized Block take(long bytes) throws StoreException {
        if (closed) {
            throw new IllegalStateException("tensor stream is closed");
        }
        Block block = kept;
        kept = null;
        if (block != null && block.memory().byteSize() >= bytes) {
            return block;
        }
        if (block != null) {
            block.arena().close();
        }
        Arena arena = Arena.ofShared();
        try {
            return new Block(arena, AnonymousMemory.allocate(bytes, arena));
        } catch (StoreException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Keeps {@code block} for the next batch if it is the largest given back, else frees it. */
    synchronized void giveBack(Block block) {
        if (closed) {
            block.arena().close();
        } else if (kept == null || block.memory().byteSize() > kept.memory().byteSize()) {
            if (kept != null) {
                kept.arena().close();
            }
            kept = block;
        } else {
            block.arena().close();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (kept != null) {
            kept.arena().close();
            kept = null;
        }
    }
}
