package io.weightstore.weights;

import io.weightstore.format.TensorInfo;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The bytes of a {@link ColumnLayout}, gathered row piece by row piece from the file they are laid out from as they
 * are read, and hashed on the way: a put reads them a slice at a time, so no more than a slice is ever in memory.
 */
final class ColumnLayoutBytes extends InputStream {
    private final MemorySegment file;
    private final long dataStart;
    private final List<TensorInfo> tensors;
    private final int worldSize;
    private final Sha256 sha = new Sha256();
    private int rank;
    private int tensor;
    private long row;
    /** Bytes of the current row's piece already read. */
    private long inPiece;

    /**
     * @param file the whole file, mapped
     * @param dataStart where the file's tensor data starts (after its header)
     * @param tensors the tensors laid out, each splitting evenly by columns over {@code worldSize} ranks
     */
    ColumnLayoutBytes(MemorySegment file, long dataStart, List<TensorInfo> tensors, int worldSize) {
        if (tensors.isEmpty()) {
            throw new IllegalArgumentException("a column layout of no tensors");
        }
        this.file = file;
        this.dataStart = dataStart;
        this.tensors = List.copyOf(tensors);
        this.worldSize = worldSize;
    }

    /** Bytes of the layout: the tensors' bytes. */
    static long size(List<TensorInfo> tensors) {
        return tensors.stream().mapToLong(TensorInfo::byteSize).sum();
    }

    @Override
    public int read(byte[] into, int offset, int length) {
        int done = 0;
        while (done < length && rank < worldSize) {
            TensorInfo current = tensors.get(tensor);
            long rows = current.shape().getFirst();
            long rowBytes = current.byteSize() / rows;
            long piece = rowBytes / worldSize;
            long from = dataStart + current.begin() + row * rowBytes + rank * piece + inPiece;
            int n = (int) Math.min(length - done, piece - inPiece);
            MemorySegment.copy(file, ValueLayout.JAVA_BYTE, from, into, offset + done, n);
            done += n;
            inPiece += n;
            if (inPiece == piece) {
                inPiece = 0;
                if (++row == rows) {
                    row = 0;
                    if (++tensor == tensors.size()) {
                        tensor = 0;
                        rank++;
                    }
                }
            }
        }
        if (done == 0 && length > 0) {
            return -1;
        }
        sha.update(MemorySegment.ofArray(into).asSlice(offset, done));
        return done;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    /** The SHA-256 of every byte read so far: of the whole layout once it was read to its end. */
    String sha256() {
        return sha.hex();
    }
}
