package io.weightstore.store;

import io.weightstore.store.api.Range;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/** Deterministic test data in off-heap memory, and whole-object reads to compare with it. */
public final class Bytes {
    private Bytes() {}

    public static MemorySegment random(Arena arena, long size, long seed) {
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

    public static boolean equal(MemorySegment a, MemorySegment b) {
        return a.byteSize() == b.byteSize() && a.mismatch(b) == -1;
    }

    /** The whole object, read through a reader opened and closed for it. */
    public static MemorySegment readWhole(StoreClient store, String key, Arena arena) throws IOException {
        try (ObjectReader object = store.open(key)) {
            MemorySegment back = arena.allocate(Math.max(1, object.size()), 64).asSlice(0, object.size());
            object.read(new Range(0, object.size()), back);
            return back;
        }
    }
}
