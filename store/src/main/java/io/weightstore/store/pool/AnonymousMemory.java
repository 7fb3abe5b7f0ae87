package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Memory straight from the kernel for data that lives as long as whoever holds it (tensors an engine
 * keeps), mapped anonymous and private, starting on a 2 MiB boundary and advised to be backed by
 * huge pages. On Linux, in a JVM that lets this module call native code; elsewhere it is
 * {@link Arena#allocate}'s, with what that costs.
 *
 * <p>Not {@link Arena#allocate}: that zeroes what it hands out, which the kernel already did when it
 * faulted the pages in, so fresh memory was cleared twice; it maps in 4 KiB pages, a fault each (on
 * the VMs a load filling fresh memory spent most of its time in the two clears and the faults, at
 * 0.2-0.3 GB/s); and it counts against the JVM's direct-memory limit, which by default is the heap's,
 * so an engine could not hold a model larger than its heap limit. The price of the last: the JVM
 * does not know how much of this there is, and memory in an automatic arena is unmapped only after a
 * collection finds it unreachable, as a file's mapping is.
 */
public final class AnonymousMemory {
    private AnonymousMemory() {}

    /**
     * {@code bytes} of zeroed, writable memory (at least one page), aligned to 2 MiB, unmapped when
     * {@code arena} closes (for an automatic arena, once no segment of it is reachable).
     *
     * @throws StoreException IO when the kernel refuses the mapping (no memory, or the process's limit)
     */
    public static MemorySegment allocate(long bytes, Arena arena) throws StoreException {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0: bytes=" + bytes);
        }
        if (!Libc.LINUX || !AnonymousMemory.class.getModule().isNativeAccessEnabled()) {
            // An engine embedding the loader in a JVM that denies native access still loads, as before this class.
            return arena.allocate(Math.max(1, bytes), PoolFile.HUGE_PAGE).asSlice(0, bytes);
        }
        long length = Math.max(PoolFile.HUGE_PAGE, Math.ceilDiv(bytes, PoolFile.HUGE_PAGE) * PoolFile.HUGE_PAGE);
        // Mapped a huge page larger than asked, then trimmed to the first 2 MiB boundary: the kernel backs only
        // huge-page-aligned stretches of a mapping with huge pages.
        long mapped = length + PoolFile.HUGE_PAGE;
        long start;
        try (Arena call = Arena.ofConfined()) {
            start = Libc.mmap(call.allocate(Libc.CALL_STATE), MemorySegment.NULL, mapped, Libc.PROT_READ | Libc.PROT_WRITE,
                    Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0, "map " + length + " bytes of memory").address();
        }
        long aligned = Math.ceilDiv(start, PoolFile.HUGE_PAGE) * PoolFile.HUGE_PAGE;
        if (aligned > start) {
            Libc.munmap(start, aligned - start);
        }
        long tail = start + mapped - (aligned + length);
        if (tail > 0) {
            Libc.munmap(aligned + length, tail);
        }
        Libc.madvise(aligned, length, Libc.MADV_HUGEPAGE);
        return MemorySegment.ofAddress(aligned).reinterpret(bytes, arena, ignored -> Libc.munmap(aligned, length));
    }

    /**
     * Leaves the pages of {@code memory}, from {@link #allocate}, for the kernel to take back when it
     * runs short, without unmapping them (MADV_FREE): memory kept idle for a use that may not come
     * costs nothing while memory is plenty, and when it is used again before the kernel took it, it
     * is not faulted in anew. A page the kernel took reads as zeros until written. Whatever was in
     * {@code memory} may be lost, so no one may be using it.
     */
    public static void reclaimable(MemorySegment memory) {
        if (!Libc.LINUX || !AnonymousMemory.class.getModule().isNativeAccessEnabled() || memory.byteSize() == 0) {
            return;
        }
        if (memory.address() % PoolFile.HUGE_PAGE != 0) {
            // The advice is rounded up to whole pages: on a slice, or on memory of another allocator, it could free a neighbour's.
            throw new IllegalArgumentException("memory must be as allocate gave it, starting on a 2 MiB boundary: address=0x"
                    + Long.toHexString(memory.address()));
        }
        // Within the mapping, which ends on a 2 MiB boundary: the advice covers whole pages.
        Libc.madvise(memory.address(), Math.ceilDiv(memory.byteSize(), Libc.PAGE) * Libc.PAGE, Libc.MADV_FREE);
    }
}
