package io.weightstore.store;

import java.lang.foreign.MemorySegment;
import java.util.List;

/** One read of a batch handed to {@link StoreClient#read(List)}: its bytes land in {@code dst}. */
public sealed interface Read {
    String key();

    MemorySegment dst();

    /** Ranges of an object, packed one after another into {@code dst}. */
    record Ranges(String key, List<Range> ranges, MemorySegment dst) implements Read {
        public Ranges {
            ranges = List.copyOf(ranges);
        }
    }

    /** {@code count} rows of {@code blockLength} bytes, {@code stride} apart from {@code offset}, packed into {@code dst}. */
    record Strided(String key, long offset, long blockLength, long stride, int count, MemorySegment dst) implements Read {}
}
