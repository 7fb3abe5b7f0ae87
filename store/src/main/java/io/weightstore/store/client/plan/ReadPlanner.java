package io.weightstore.store.client.plan;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.Stride;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.FrameCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a read into {@link ReadTask}s: never across a slice boundary, never larger than the piece
 * limit (so one large range is served by many connections and nodes at once), and merging
 * consecutive small ranges of one slice into a single request of at most as many ranges as a node
 * accepts.
 */
public final class ReadPlanner {
    private ReadPlanner() {}

    /**
     * Ranges of {@code object} packed one after another into the destination, in order. A range is
     * cut at whole checksum blocks (the piece limit rounded down to them), so that every block inside
     * one range lies inside one request and is checked by the client as it lands: what a caller that
     * joins the recorded CRCs of those blocks relies on.
     */
    public static List<ReadTask> ranges(ObjectMeta object, List<Range> ranges, long maxPieceBytes) {
        List<ReadTask> tasks = new ArrayList<>();
        long block = object.checksumBlockSize();
        long maxPiece = Math.max(block, maxPieceBytes / block * block);
        long sliceSize = object.sliceSize();
        long dst = 0;
        List<Range> current = new ArrayList<>();
        int currentSlice = -1;
        long currentDst = 0;
        long currentBytes = 0;
        for (Range range : ranges) {
            long position = range.offset();
            while (position < range.end()) {
                int slice = (int) (position / sliceSize);
                long inSlice = position - slice * sliceSize;
                long pieceEnd = Math.min(range.end() - slice * sliceSize,
                        Math.min(object.slice(slice).length(), (inSlice / maxPiece + 1) * maxPiece));
                long length = pieceEnd - inSlice;
                if (slice != currentSlice || currentBytes + length > maxPiece || current.size() == FrameCodec.MAX_RANGES) {
                    flush(tasks, currentSlice, current, currentDst);
                    current = new ArrayList<>();
                    currentSlice = slice;
                    currentDst = dst;
                    currentBytes = 0;
                }
                current.add(new Range(inSlice, length));
                currentBytes += length;
                position += length;
                dst += length;
            }
        }
        flush(tasks, currentSlice, current, currentDst);
        return tasks;
    }

    private static void flush(List<ReadTask> tasks, int slice, List<Range> pieces, long dstOffset) {
        if (!pieces.isEmpty()) {
            tasks.add(new ReadTask.Ranges(slice, pieces, dstOffset));
        }
    }

    /**
     * The rows of {@code stride} packed into the destination. Rows inside one slice become strided
     * requests; a row that straddles two slices is read as two plain ranges. Rows of no bytes read
     * nothing: an uneven split's last rank may get no columns, and its rows of a file's last tensor
     * start at the object's end, in no slice.
     */
    public static List<ReadTask> strided(ObjectMeta object, Stride stride, long maxPiece) {
        if (stride.bytes() == 0) {
            return List.of();
        }
        List<ReadTask> tasks = new ArrayList<>();
        long sliceSize = object.sliceSize();
        long blockLength = stride.blockLength();
        // A request names every checksum block its rows' span touches; in a slice above a GiB that span could need more
        // checks than one frame carries, so the rows of one request stay within what it may check.
        long rowsChecked = (FrameCodec.MAX_CHECKS - 2L) * object.checksumBlockSize() / stride.stride();
        long rowsPerTask = Math.max(1, Math.min(maxPiece / blockLength, rowsChecked));
        int runStart = -1;
        int runSlice = -1;
        for (int row = 0; row < stride.count(); row++) {
            long start = stride.rowOffset(row);
            long end = start + blockLength;
            int slice = (int) (start / sliceSize);
            boolean inOneSlice = (end - 1) / sliceSize == slice;
            if (runStart >= 0 && (!inOneSlice || slice != runSlice || row - runStart >= rowsPerTask)) {
                tasks.add(run(object, stride, runStart, row, runSlice));
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
                    tasks.add(new ReadTask.Ranges(part, List.of(new Range(position - part * sliceSize, partEnd - position)),
                            dst + position - start));
                    position = partEnd;
                }
            }
        }
        if (runStart >= 0) {
            tasks.add(run(object, stride, runStart, stride.count(), runSlice));
        }
        return tasks;
    }

    private static ReadTask run(ObjectMeta object, Stride stride, int fromRow, int toRow, int slice) {
        long inSlice = stride.rowOffset(fromRow) - slice * object.sliceSize();
        return new ReadTask.Strided(slice, new Stride(inSlice, stride.blockLength(), stride.stride(), toRow - fromRow),
                fromRow * stride.blockLength());
    }

    /** The checksum blocks a task reads from, at the pool offset of the replica that will serve it. */
    public static List<BlockCheck> checks(ReadTask task, ObjectMeta object, long replicaOffset) {
        SliceMeta slice = object.slice(task.slice());
        return ReadTask.checks(task, slice, object.checksumBlockSize(), replicaOffset);
    }
}
