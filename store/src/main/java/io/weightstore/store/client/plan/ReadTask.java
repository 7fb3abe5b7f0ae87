package io.weightstore.store.client.plan;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.Stride;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.NodeAccess;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * One unit of parallel read work: bytes of a single slice going to one stretch of the destination,
 * served by whichever replica of that slice answers first without error. Offsets are relative to
 * the slice.
 */
public sealed interface ReadTask {
    int slice();

    /** Bytes this task delivers to the destination. */
    long bytes();

    /** Where in the destination this task's bytes start. */
    long dstOffset();

    /** From the first to the last byte the task touches in its slice. */
    Range extent();

    /**
     * Reads from a replica at {@code replicaOffset} in its node's pool, checking {@code checks} on the
     * way; returns the CRC32C of the bytes it delivered when {@code hash}, else 0. A busy node is
     * waited out or not as {@code onBusy} says.
     */
    int run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy)
            throws IOException;

    /** Ranges of one slice, packed contiguously at {@code dstOffset}. */
    record Ranges(int slice, List<Range> ranges, long dstOffset) implements ReadTask {
        public Ranges {
            ranges = List.copyOf(ranges);
        }

        @Override
        public long bytes() {
            return ranges.stream().mapToLong(Range::length).sum();
        }

        @Override
        public Range extent() {
            long start = ranges.stream().mapToLong(Range::offset).min().orElse(0);
            long end = ranges.stream().mapToLong(Range::end).max().orElse(start);
            return new Range(start, end - start);
        }

        @Override
        public int run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy)
                throws IOException {
            List<Range> inPool = ranges.stream().map(r -> new Range(replicaOffset + r.offset(), r.length())).toList();
            MemorySegment delivered = dst.asSlice(dstOffset, bytes());
            node.read(inPool, checks, delivered, onBusy);
            // Only a row that straddles two slices is read this way under a strided read: a few bytes, hashed while in cache.
            return hash ? Checksums.crc32c(delivered) : 0;
        }
    }

    /** Rows of one slice, packed at {@code dstOffset}. */
    record Strided(int slice, Stride stride, long dstOffset) implements ReadTask {
        @Override
        public long bytes() {
            return stride.bytes();
        }

        @Override
        public Range extent() {
            return new Range(stride.offset(), stride.span());
        }

        @Override
        public int run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy)
                throws IOException {
            Stride inPool = new Stride(replicaOffset + stride.offset(), stride.blockLength(), stride.stride(), stride.count());
            return node.readStrided(inPool, checks, dst.asSlice(dstOffset, bytes()), hash, onBusy);
        }
    }

    /** The checksum blocks of {@code slice} that the task reads from, placed at the replica's pool offset. */
    static List<BlockCheck> checks(ReadTask task, SliceMeta slice, int blockSize, long replicaOffset) {
        List<BlockCheck> checks = new ArrayList<>();
        Range extent = task.extent();
        for (long block = extent.offset() / blockSize; block * blockSize < extent.end(); block++) {
            if (task instanceof Ranges r && !touches(r.ranges(), block * blockSize, (block + 1) * blockSize)) {
                continue;
            }
            long start = block * blockSize;
            int length = (int) Math.min(blockSize, slice.length() - start);
            checks.add(new BlockCheck(replicaOffset + start, length, slice.crcs().get((int) block)));
        }
        return checks;
    }

    private static boolean touches(List<Range> ranges, long start, long end) {
        for (Range range : ranges) {
            if (range.offset() < end && start < range.end()) {
                return true;
            }
        }
        return false;
    }
}
