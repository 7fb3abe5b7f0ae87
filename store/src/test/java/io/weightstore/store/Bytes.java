package io.weightstore.store;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Deterministic test data in off-heap memory. */
final class Bytes {
    private Bytes() {}

    static MemorySegment random(Arena arena, long size, long seed) {
        MemorySegment segment = arena.allocate(Math.max(1, size), 64).asSlice(0, size);
        SplittableRandom random = new SplittableRandom(seed);
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
        for (; i < size; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return segment;
    }

    static boolean equal(MemorySegment a, MemorySegment b) {
        return a.byteSize() == b.byteSize() && a.mismatch(b) == -1;
    }
}
