package io.weightstore.store;

import io.weightstore.store.proto.ObjectMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a read into {@link ReadTask}s: never across a slice boundary, never larger than the piece
 * limit (so one large range is served by many connections and nodes at once), and merging
 * consecutive small ranges of one slice into a single request.
 */
final class ReadPlanner {
    private ReadPlanner() {}

    /** Ranges packed one after another into the destination, in order. */
    static List<ReadTask> ranges(ObjectMeta object, List<Range> ranges, long maxPiece) {
        List<ReadTask> tasks = new ArrayList<>();
        long sliceSize = object.getSliceSize();
        long dst = 0;
        List<long[]> current = new ArrayList<>();
        int currentSlice = -1;
        long currentDst = 0;
        long currentBytes = 0;
        for (Range range : ranges) {
            long position = range.offset();
            while (position < range.end()) {
                int slice = (int) (position / sliceSize);
                long inSlice = position - slice * sliceSize;
                long pieceEnd = Math.min(range.end() - slice * sliceSize,
                        Math.min(object.getSlices(slice).getLength(), (inSlice / maxPiece + 1) * maxPiece));
                long length = pieceEnd - inSlice;
                if (slice != currentSlice || currentBytes + length > maxPiece) {
                    flush(tasks, currentSlice, current, currentDst);
                    current = new ArrayList<>();
                    currentSlice = slice;
                    currentDst = dst;
                    currentBytes = 0;
                }
                current.add(new long[] {inSlice, length});
                currentBytes += length;
                position += length;
                dst += length;
            }
        }
        flush(tasks, currentSlice, current, currentDst);
        return tasks;
    }

    private static void flush(List<ReadTask> tasks, int slice, List<long[]> pieces, long dstOffset) {
        if (pieces.isEmpty()) {
            return;
        }
        long[] offsets = new long[pieces.size()];
        long[] lengths = new long[pieces.size()];
        for (int i = 0; i < pieces.size(); i++) {
            offsets[i] = pieces.get(i)[0];
            lengths[i] = pieces.get(i)[1];
        }
        tasks.add(new ReadTask.Ranges(slice, offsets, lengths, dstOffset));
    }

    /**
     * {@code count} rows of {@code blockLength} bytes, {@code stride} apart from {@code offset}, packed
     * into the destination. Rows inside one slice become strided requests; a row that straddles two
     * slices is read as two plain ranges.
     */
    static List<ReadTask> strided(ObjectMeta object, long offset, long blockLength, long stride, int count, long maxPiece) {
        List<ReadTask> tasks = new ArrayList<>();
        long sliceSize = object.getSliceSize();
        long rowsPerTask = Math.max(1, maxPiece / Math.max(1, blockLength));
        int runStart = -1;
        int runSlice = -1;
        for (int row = 0; row < count; row++) {
            long start = offset + row * stride;
            long end = start + blockLength;
            int slice = (int) (start / sliceSize);
            boolean inOneSlice = blockLength == 0 || (end - 1) / sliceSize == slice;
            if (runStart >= 0 && (!inOneSlice || slice != runSlice || row - runStart >= rowsPerTask)) {
                tasks.add(run(object, offset, blockLength, stride, runStart, row, runSlice));
                runStart = -1;
            }
            if (inOneSlice) {
                if (runStart < 0) {
                    runStart = row;
                    runSlice = slice;
                }
            } else {
                long dst = row * blockLength;
                for (long position = start; position < end; ) {
                    int part = (int) (position / sliceSize);
                    long partEnd = Math.min(end, (part + 1) * sliceSize);
                    tasks.add(new ReadTask.Ranges(part, new long[] {position - part * sliceSize},
                            new long[] {partEnd - position}, dst + position - start));
                    position = partEnd;
                }
            }
        }
        if (runStart >= 0) {
            tasks.add(run(object, offset, blockLength, stride, runStart, count, runSlice));
        }
        return tasks;
    }

    private static ReadTask run(ObjectMeta object, long offset, long blockLength, long stride, int fromRow, int toRow, int slice) {
        long inSlice = offset + fromRow * stride - slice * object.getSliceSize();
        return new ReadTask.Strided(slice, inSlice, blockLength, stride, toRow - fromRow, fromRow * blockLength);
    }
}
