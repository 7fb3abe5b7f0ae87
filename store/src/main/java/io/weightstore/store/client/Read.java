package io.weightstore.store.client;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** One read of a batch handed to {@link StoreClient#read(List)}, from an open object; its bytes land in {@code dst}. */
public sealed interface Read {
    ObjectReader object();

    MemorySegment dst();

    /** Ranges of the object, packed one after another into {@code dst}. */
    record Ranges(ObjectReader object, List<Range> ranges, MemorySegment dst) implements Read {
        public Ranges {
            ranges = List.copyOf(ranges);
        }
    }

    /** The rows of {@code stride}, packed into {@code dst}. */
    record Strided(ObjectReader object, Stride stride, MemorySegment dst) implements Read {}
}
