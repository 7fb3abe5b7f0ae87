package io.weightstore.store.client.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.Stride;
import io.weightstore.store.wire.FrameCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A range is cut into requests only at whole checksum blocks, whatever the piece limit, so every
 * block inside one range reaches the client in one request and is checked by it as it lands; and the
 * requests deliver the range's bytes exactly, in order. A stride's requests name only slices the
 * object has, and deliver its rows packed, in order.
 */
class ReadPlannerProperties {
    @Property(tries = 500)
    void aRangeIsCutOnlyAtWholeBlocksAndDeliveredWhole(@ForAll @IntRange(min = 1, max = 64) int blockSize,
            @ForAll @IntRange(min = 1, max = 8) int blocksPerSlice, @ForAll @IntRange(min = 1, max = 5000) int size,
            @ForAll @IntRange(min = 1, max = 500) int maxPiece, @ForAll @IntRange(max = 4999) int start,
            @ForAll @IntRange(max = 5000) int length) {
        int from = Math.min(start, size - 1);
        Range range = new Range(from, Math.min(length, size - from));
        ObjectMeta object = object(size, blockSize * blocksPerSlice, blockSize);
        List<ReadTask> tasks = ReadPlanner.ranges(object, List.of(range), maxPiece);
        long next = range.offset();
        long dst = 0;
        for (ReadTask task : tasks) {
            ReadTask.Ranges pieces = (ReadTask.Ranges) task;
            assertThat(pieces.dstOffset()).isEqualTo(dst);
            for (Range piece : pieces.ranges()) {
                long at = task.slice() * object.sliceSize() + piece.offset();
                assertThat(at).isEqualTo(next);
                if (at != range.offset()) {
                    // A cut inside the range: at a block boundary of its slice (slices start on one).
                    assertThat(piece.offset() % blockSize).as("cut at %d, blocks of %d", at, blockSize).isZero();
                }
                next = at + piece.length();
                dst += piece.length();
            }
        }
        assertThat(next).isEqualTo(range.end());
    }

    @Property(tries = 500)
    void aStrideIsReadFromSlicesTheObjectHasAndDeliveredRowByRow(@ForAll @IntRange(min = 1, max = 16) int blockSize,
            @ForAll @IntRange(min = 1, max = 8) int blocksPerSlice, @ForAll @IntRange(min = 1, max = 2000) int size,
            @ForAll @IntRange(max = 40) int blockLength, @ForAll @IntRange(max = 40) int gap, @ForAll @IntRange(max = 60) int count,
            @ForAll @IntRange(min = 1, max = 300) int maxPiece, @ForAll @IntRange(max = 1999) int start) {
        Stride stride = new Stride(0, blockLength, blockLength + gap, count);
        // Where the rows fit, and often ending at the object's last byte, as a file's last tensor's last column shard does.
        long offset = Math.max(0, Math.min(start, size - stride.span()));
        if (offset + stride.span() > size) {
            return;
        }
        stride = new Stride(offset, blockLength, blockLength + gap, count);
        ObjectMeta object = object(size, blockSize * blocksPerSlice, blockSize);
        long[] delivered = new long[(int) stride.bytes()];
        Arrays.fill(delivered, -1);
        for (ReadTask task : ReadPlanner.strided(object, stride, maxPiece)) {
            assertThat(task.slice()).as("slice of %s", task).isBetween(0, object.slices().size() - 1);
            long sliceStart = task.slice() * object.sliceSize();
            switch (task) {
                case ReadTask.Ranges pieces -> {
                    long dst = pieces.dstOffset();
                    for (Range piece : pieces.ranges()) {
                        for (long i = 0; i < piece.length(); i++) {
                            delivered[(int) (dst++)] = sliceStart + piece.offset() + i;
                        }
                    }
                }
                case ReadTask.Strided rows -> {
                    for (int row = 0; row < rows.stride().count(); row++) {
                        for (long i = 0; i < rows.stride().blockLength(); i++) {
                            delivered[(int) (rows.dstOffset() + row * rows.stride().blockLength() + i)] =
                                    sliceStart + rows.stride().rowOffset(row) + i;
                        }
                    }
                }
            }
        }
        for (int row = 0; row < count; row++) {
            for (int i = 0; i < blockLength; i++) {
                assertThat(delivered[row * blockLength + i]).isEqualTo(stride.rowOffset(row) + i);
            }
        }
    }

    @Example
    void theRowsOfAStrideInASliceOfTwoGiBAreAskedForInRequestsOfAtMostTheChecksAFrameCarries() {
        long gib = 1L << 30;
        ObjectMeta object = object(2 * gib, 2 * gib, 64 << 10);
        Stride columns = new Stride(0, 256, 1 << 20, 2048);
        long rows = 0;
        for (ReadTask task : ReadPlanner.strided(object, columns, 16 << 20)) {
            assertThat(ReadPlanner.checks(task, object, 0)).as("checks of %s", task).hasSizeLessThanOrEqualTo(FrameCodec.MAX_CHECKS);
            rows += ((ReadTask.Strided) task).stride().count();
        }
        assertThat(rows).isEqualTo(columns.count());
    }

    private static ObjectMeta object(long size, long sliceSize, int blockSize) {
        List<SliceMeta> slices = new ArrayList<>();
        for (long offset = 0; offset < size; offset += sliceSize) {
            long length = Math.min(sliceSize, size - offset);
            slices.add(new SliceMeta(offset, length, List.of(new ReplicaRef("n1", offset)),
                    BlockCrcs.of(new int[(int) ((length + blockSize - 1) / blockSize)])));
        }
        return new ObjectMeta("k", size, sliceSize, blockSize, slices, false, Instant.EPOCH, 1);
    }
}
