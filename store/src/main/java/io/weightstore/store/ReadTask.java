package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import io.weightstore.store.proto.Slice;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One unit of parallel read work: bytes of a single slice going to one stretch of the destination,
 * served by whichever replica of that slice answers first without error.
 */
sealed interface ReadTask {
    int slice();

    /** Bytes this task delivers to the destination. */
    long bytes();

    /** Indices of the slice's checksum blocks that hold the bytes this task reads, ascending. */
    SortedSet<Integer> blocks(int blockSize);

    void run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst) throws IOException;

    /** Ranges of one slice, packed contiguously at {@code dstOffset}. */
    record Ranges(int slice, long[] offsets, long[] lengths, long dstOffset) implements ReadTask {
        @Override
        public SortedSet<Integer> blocks(int blockSize) {
            SortedSet<Integer> blocks = new TreeSet<>();
            for (int i = 0; i < offsets.length; i++) {
                addBlocks(blocks, offsets[i], offsets[i] + lengths[i], blockSize);
            }
            return blocks;
        }

        @Override
        public long bytes() {
            long total = 0;
            for (long length : lengths) {
                total += length;
            }
            return total;
        }

        @Override
        public void run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst) throws IOException {
            long[] poolOffsets = new long[offsets.length];
            for (int i = 0; i < offsets.length; i++) {
                poolOffsets[i] = replicaOffset + offsets[i];
            }
            node.read(poolOffsets, lengths, checks, dst.asSlice(dstOffset, bytes()));
        }
    }

    /** Rows of one slice, {@code stride} apart, packed at {@code dstOffset}. */
    record Strided(int slice, long offset, long blockLength, long stride, int count, long dstOffset) implements ReadTask {
        @Override
        public long bytes() {
            return blockLength * count;
        }

        @Override
        public SortedSet<Integer> blocks(int blockSize) {
            SortedSet<Integer> blocks = new TreeSet<>();
            if (count > 0) {
                addBlocks(blocks, offset, offset + (count - 1L) * stride + blockLength, blockSize);
            }
            return blocks;
        }

        @Override
        public void run(NodeAccess node, long replicaOffset, List<BlockCheck> checks, MemorySegment dst) throws IOException {
            node.readStrided(replicaOffset + offset, blockLength, stride, count, checks, dst.asSlice(dstOffset, bytes()));
        }
    }

    static void addBlocks(SortedSet<Integer> blocks, long start, long end, int blockSize) {
        for (long block = start / blockSize; block * blockSize < end; block++) {
            blocks.add((int) block);
        }
    }

    /** The checksum blocks of {@code slice} that the task reads from, at the replica's pool offset. */
    static List<BlockCheck> checks(ReadTask task, Slice slice, int blockSize, long replicaOffset) {
        List<BlockCheck> checks = new ArrayList<>();
        for (int block : task.blocks(blockSize)) {
            long start = (long) block * blockSize;
            int length = (int) Math.min(blockSize, slice.getLength() - start);
            checks.add(new BlockCheck(replicaOffset + start, length, slice.getBlockCrcs(block)));
        }
        return checks;
    }
}
