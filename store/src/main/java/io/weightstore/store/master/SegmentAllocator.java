package io.weightstore.store.master;

import io.weightstore.store.api.Range;
import io.weightstore.store.pool.PoolFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Free space of one node's pool segment: first-fit allocation of aligned ranges, with neighbouring
 * free ranges merged on release. Not thread-safe; the master serialises access.
 *
 * <p>A range of a huge page or more starts where the pool file's huge pages start, where one fits:
 * a reader on the node's host maps it by whole 2 MiB entries (ten times as fast to read the first
 * time as 4 KiB ones on the VMs measured), which needs the mapping's addresses and the file's offsets
 * to agree modulo 2 MiB, and slices placed anywhere else could not all agree with one mapping.
 * Where none fits so, it goes first fit. What that costs is room: a gap left before an aligned range
 * (under 2 MiB) takes only smaller ranges, so a pool filled to its last slice may hold one slice
 * fewer than without the rule (the master evicts from 95 % of capacity, well before that).
 */
final class SegmentAllocator {
    static final long ALIGNMENT = 4096;
    /** The data offsets at which the file's huge pages start: data begins after the pool's header. */
    static final long HUGE_PAGE_PHASE = Math.floorMod(-PoolFile.DATA_START, PoolFile.HUGE_PAGE);

    private final long capacity;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private long used;

    SegmentAllocator(long capacity) {
        this.capacity = capacity - capacity % ALIGNMENT;
        if (this.capacity > 0) {
            free.put(0L, this.capacity);
        }
    }

    static long aligned(long length) {
        return Math.ceilDiv(length, ALIGNMENT) * ALIGNMENT;
    }

    long capacity() {
        return capacity;
    }

    long used() {
        return used;
    }

    long free() {
        return capacity - used;
    }

    OptionalLong allocate(long length) {
        long size = aligned(Math.max(1, length));
        OptionalLong onHugePages = size >= PoolFile.HUGE_PAGE ? firstFit(size, PoolFile.HUGE_PAGE, HUGE_PAGE_PHASE)
                : OptionalLong.empty();
        return onHugePages.isPresent() ? onHugePages : firstFit(size, ALIGNMENT, 0);
    }

    /** The first free place for {@code size} bytes at an offset that is {@code phase} modulo {@code alignment}, taken. */
    private OptionalLong firstFit(long size, long alignment, long phase) {
        for (Map.Entry<Long, Long> range : free.entrySet()) {
            // Read the entry before removing it: TreeMap reuses a removed node for its successor's mapping.
            long offset = range.getKey();
            long end = offset + range.getValue();
            long start = offset + Math.floorMod(phase - offset, alignment);
            if (start + size <= end) {
                free.remove(offset);
                if (start > offset) {
                    free.put(offset, start - offset);
                }
                if (end > start + size) {
                    free.put(start + size, end - start - size);
                }
                used += size;
                return OptionalLong.of(start);
            }
        }
        return OptionalLong.empty();
    }

    /** Whether the whole range is free, so that {@link #reserve} would take it. */
    boolean isFree(long offset, long length) {
        Map.Entry<Long, Long> range = free.floorEntry(offset);
        return range != null && range.getKey() + range.getValue() >= offset + aligned(Math.max(1, length));
    }

    /** Marks a range taken that an object already holds, when the master rebuilds its state at start-up. */
    void reserve(long offset, long length) {
        long size = aligned(Math.max(1, length));
        if (!isFree(offset, length)) {
            throw new IllegalStateException("range is not free: offset=" + offset + " length=" + size);
        }
        Map.Entry<Long, Long> range = free.floorEntry(offset);
        long rangeStart = range.getKey();
        long rangeEnd = rangeStart + range.getValue();
        free.remove(rangeStart);
        if (offset > rangeStart) {
            free.put(rangeStart, offset - rangeStart);
        }
        if (rangeEnd > offset + size) {
            free.put(offset + size, rangeEnd - offset - size);
        }
        used += size;
    }

    /** Takes the free parts of {@code length} bytes at {@code offset} out of the free space, and returns them. */
    List<Range> takeFree(long offset, long length) {
        long end = offset + aligned(Math.max(1, length));
        Long first = free.floorKey(offset);
        List<Range> parts = new ArrayList<>();
        for (Map.Entry<Long, Long> range : free.tailMap(first == null ? offset : first, true).entrySet()) {
            if (range.getKey() >= end) {
                break;
            }
            long from = Math.max(offset, range.getKey());
            long to = Math.min(end, range.getKey() + range.getValue());
            if (to > from) {
                parts.add(new Range(from, to - from));
            }
        }
        parts.forEach(part -> reserve(part.offset(), part.length()));
        return parts;
    }

    void release(long offset, long length) {
        long size = aligned(Math.max(1, length));
        long start = offset;
        long end = offset + size;
        Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            start = before.getKey();
            free.remove(start);
        }
        Long afterLength = free.remove(end);
        if (afterLength != null) {
            end += afterLength;
        }
        free.put(start, end - start);
        used -= size;
    }
}
