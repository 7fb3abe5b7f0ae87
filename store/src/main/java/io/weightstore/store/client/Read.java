package io.weightstore.store.client;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;

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

    /** The rows of {@code stride}, packed into {@code dst}; with {@code crc}, their CRC32C as they landed. */
    record Strided(ObjectReader object, Stride stride, MemorySegment dst, Optional<ArrivedCrc> crc) implements Read {
        public Strided(ObjectReader object, Stride stride, MemorySegment dst) {
            this(object, stride, dst, Optional.empty());
        }
    }
}
