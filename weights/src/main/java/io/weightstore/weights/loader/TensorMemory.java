package io.weightstore.weights.loader;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.AnonymousMemory;
import io.weightstore.store.pool.PoolFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Memory for a tensor, a rank's shard of one, or a prefetched batch of them, that an engine keeps: it
 * lives as long as any segment of it is reachable, and the collector frees it with the engine's tensor. From
 * {@link PoolFile#HUGE_PAGE} up it comes from the kernel ({@link AnonymousMemory}), outside the
 * JVM's direct-memory limit, which by default is the heap's: an automatic arena's memory counts
 * against that limit, near which the JVM runs full collections before it fails, so a rank's share of
 * a model larger than the heap limit would not load. Smaller tensors (norms, biases) come from the
 * JVM's allocator, as a mapping of their own would take a huge page each.
 */
public final class TensorMemory {
    private TensorMemory() {}

    /** {@code bytes} of zeroed memory, aligned to 64 bytes at least, freed once no segment of it is reachable. */
    public static MemorySegment allocate(long bytes) throws StoreException {
        if (bytes >= PoolFile.HUGE_PAGE) {
            return AnonymousMemory.allocate(bytes, Arena.ofAuto());
        }
        return Arena.ofAuto().allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
    }
}
