package io.weightstore.weights.checks;

import io.weightstore.format.TensorInfo;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.checksum.Crc32cCombine;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.zip.Checksum;

/**
 * Computes a tensor's {@link TensorCrcs} in one pass over its bytes. The tensor is a matrix of
 * {@code shape[0]} rows; a column split cuts each row into g equal cells (g the largest of 2, 4, 8
 * that divides {@code shape[1]} on byte boundaries). Each cell's CRC32C is computed once; every
 * coarser piece (a rank's part of a row, a row, a block of rows) and every column shard (the rank's
 * part of each row, one after another) is then joined from those CRCs with {@link Crc32cCombine},
 * without reading a byte again. A tensor with no column split has its row blocks hashed directly.
 */
public final class TensorCrcCalculator {
    /**
     * Cells hashed per call: rows enough that the call costs little beside them, in an array that stays
     * in cache, and bytes few enough that the call, which holds off the garbage collector, stays short.
     */
    private static final int CELLS_PER_BATCH = 4096;
    /** The most bytes asked of {@link Pieces} at once. */
    public static final long BYTES_PER_BATCH = 4 << 20;

    private TensorCrcCalculator() {}

    /**
     * Bytes (a tensor's, or a whole file's) handed over a piece at a time, each piece after the one
     * before it: from a mapping, a slice of it; from a file, the piece read into a buffer that the next
     * call reuses.
     */
    @FunctionalInterface
    public interface Pieces {
        /** The {@code length} bytes from {@code offset}; valid until the next call. */
        MemorySegment next(long offset, long length);

        /** The {@code length} bytes from {@code offset}, handed to {@code each} at most {@link #BYTES_PER_BATCH} at a time. */
        default void inBatches(long offset, long length, Consumer<MemorySegment> each) {
            for (long done = 0; done < length; done += BYTES_PER_BATCH) {
                each.accept(next(offset + done, Math.min(BYTES_PER_BATCH, length - done)));
            }
        }
    }

    /** The CRCs of {@code tensor}, whose bytes are {@code data}. */
    public static TensorCrcs compute(TensorInfo tensor, MemorySegment data) {
        if (data.byteSize() != tensor.byteSize()) {
            throw new IllegalArgumentException("tensor " + tensor.name() + " has " + tensor.byteSize() + " bytes, given "
                    + data.byteSize());
        }
        return compute(tensor, data::asSlice);
    }

    /**
     * The CRCs of {@code tensor}, whose bytes {@code data} hands over in order, every byte once, in
     * pieces of at most {@link #BYTES_PER_BATCH}, however long a row: a reader's buffer stays that size.
     */
    public static TensorCrcs compute(TensorInfo tensor, Pieces data) {
        List<Long> shape = tensor.shape();
        if (shape.isEmpty() || tensor.byteSize() == 0) {
            return new TensorCrcs(tensor.name(), crc32c(data, 0, tensor.byteSize()), Map.of(), Map.of());
        }
        long rows = shape.getFirst();
        long rowBits = tensor.dtype().bits() * elements(shape, 1);
        List<Integer> rowSplits = TensorCrcs.WORLD_SIZES.stream().filter(t -> evenOnBytes(rows, t, rowBits)).toList();
        List<Integer> columnSplits = shape.size() < 2 ? List.of() : TensorCrcs.WORLD_SIZES.stream()
                .filter(t -> evenOnBytes(shape.get(1), t, tensor.dtype().bits() * elements(shape, 2))).toList();
        if (columnSplits.isEmpty()) {
            return byRowBlocks(tensor.name(), data, tensor.byteSize(), rowSplits);
        }
        return byCells(tensor.name(), data, tensor.byteSize(), rows, rowSplits, columnSplits.getLast());
    }

    /** The CRC32C of {@code length} bytes from {@code offset}, taken a batch at a time. */
    private static int crc32c(Pieces data, long offset, long length) {
        if (length <= BYTES_PER_BATCH) {
            return Checksums.crc32c(data.next(offset, length));
        }
        Checksum running = Checksums.newCrc32c();
        data.inBatches(offset, length, piece -> running.update(piece.asByteBuffer()));
        return (int) running.getValue();
    }

    /** Rows and columns: every row cut into {@code cellsPerRow} cells, hashed once, joined into everything else. */
    private static TensorCrcs byCells(String name, Pieces data, long bytes, long rows, List<Integer> rowSplits, int cellsPerRow) {
        long rowBytes = bytes / rows;
        long cellBytes = rowBytes / cellsPerRow;
        // Level k holds world size cellsPerRow >> k: its parts are 2^k cells long, and so are its column shards' pieces.
        int levels = Integer.numberOfTrailingZeros(cellsPerRow);
        Crc32cCombine[] joins = new Crc32cCombine[levels];
        int[][] columns = new int[levels][];
        for (int k = 0; k < levels; k++) {
            joins[k] = Crc32cCombine.forLength(cellBytes << k);
            columns[k] = new int[cellsPerRow >> k];
        }
        Crc32cCombine rowJoin = Crc32cCombine.forLength(rowBytes);
        int rowBlocks = rowSplits.isEmpty() ? 1 : rowSplits.getLast();
        long rowsPerBlock = rows / rowBlocks;
        int[] blocks = new int[rowBlocks];
        int whole = 0;
        int[] parts = new int[cellsPerRow];
        // Zero when a row is longer than a batch: then its cells are taken one by one, each a batch at a time.
        long rowsPerBatch = Math.min(CELLS_PER_BATCH / cellsPerRow, BYTES_PER_BATCH / rowBytes);
        int[] cells = new int[(int) Math.min(rows, Math.max(1, rowsPerBatch)) * cellsPerRow];
        for (long row = 0; row < rows; row++) {
            if (rowsPerBatch == 0) {
                for (int cell = 0; cell < cellsPerRow; cell++) {
                    parts[cell] = crc32c(data, row * rowBytes + cell * cellBytes, cellBytes);
                }
            } else {
                long inBatch = row % rowsPerBatch;
                if (inBatch == 0) {
                    int count = (int) Math.min(rowsPerBatch, rows - row) * cellsPerRow;
                    Checksums.cellCrcs(data.next(row * rowBytes, count * cellBytes), cellBytes, count, cells);
                }
                System.arraycopy(cells, (int) inBatch * cellsPerRow, parts, 0, cellsPerRow);
            }
            // From cells to the whole row: each level's parts extend that world size's column shards, then
            // pairs of them join into the next level's parts.
            for (int k = 0; k < levels; k++) {
                int[] shards = columns[k];
                for (int rank = 0; rank < shards.length; rank++) {
                    shards[rank] = joins[k].combine(shards[rank], parts[rank]);
                }
                for (int pair = 0; pair < shards.length / 2; pair++) {
                    parts[pair] = joins[k].combine(parts[2 * pair], parts[2 * pair + 1]);
                }
            }
            int block = (int) (row / rowsPerBlock);
            blocks[block] = rowJoin.combine(blocks[block], parts[0]);
            whole = rowJoin.combine(whole, parts[0]);
        }
        Map<Integer, List<Integer>> columnShards = new TreeMap<>();
        for (int[] shards : columns) {
            columnShards.put(shards.length, Arrays.stream(shards).boxed().toList());
        }
        Map<Integer, List<Integer>> rowShards = rowSplits.isEmpty() ? Map.of() : coarser(blocks, rowsPerBlock * rowBytes);
        return new TensorCrcs(name, whole, rowShards, columnShards);
    }

    /** Rows only: the finest row blocks are contiguous, so each is hashed straight from the bytes. */
    private static TensorCrcs byRowBlocks(String name, Pieces data, long bytes, List<Integer> rowSplits) {
        if (rowSplits.isEmpty()) {
            return new TensorCrcs(name, crc32c(data, 0, bytes), Map.of(), Map.of());
        }
        int count = rowSplits.getLast();
        long blockBytes = bytes / count;
        int[] blocks = new int[count];
        for (int i = 0; i < count; i++) {
            blocks[i] = crc32c(data, i * blockBytes, blockBytes);
        }
        Map<Integer, List<Integer>> rowShards = coarser(blocks, blockBytes);
        int whole = blocks[0];
        Crc32cCombine join = Crc32cCombine.forLength(blockBytes);
        for (int i = 1; i < count; i++) {
            whole = join.combine(whole, blocks[i]);
        }
        return new TensorCrcs(name, whole, rowShards, Map.of());
    }

    /** From the CRCs of n adjacent pieces of {@code pieceBytes} (n a power of 2), those of n, n/2 … 2 pieces. */
    private static Map<Integer, List<Integer>> coarser(int[] finest, long pieceBytes) {
        Map<Integer, List<Integer>> levels = new TreeMap<>();
        int[] level = finest;
        for (long bytes = pieceBytes; level.length >= 2; bytes *= 2) {
            levels.put(level.length, Arrays.stream(level).boxed().toList());
            Crc32cCombine join = Crc32cCombine.forLength(bytes);
            int[] next = new int[level.length / 2];
            for (int i = 0; i < next.length; i++) {
                next[i] = join.combine(level[2 * i], level[2 * i + 1]);
            }
            level = next;
        }
        return levels;
    }

    /** Whether {@code size} elements of {@code bitsEach} split into t equal parts that start and end on bytes. */
    private static boolean evenOnBytes(long size, int t, long bitsEach) {
        return size > 0 && size % t == 0 && (size / t * bitsEach) % 8 == 0;
    }

    private static long elements(List<Long> shape, int fromDim) {
        long n = 1;
        for (int i = fromDim; i < shape.size(); i++) {
            n = Math.multiplyExact(n, shape.get(i));
        }
        return n;
    }
}
