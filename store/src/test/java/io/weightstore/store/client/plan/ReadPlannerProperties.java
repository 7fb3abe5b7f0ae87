package io.weightstore.store.client.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A range is cut into requests only at whole checksum blocks, whatever the piece limit, so every
 * block inside one range reaches the client in one request and is checked by it as it lands; and the
 * requests deliver the range's bytes exactly, in order.
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
