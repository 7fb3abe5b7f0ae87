package io.weightstore.weights;

import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.PositionalSource;
import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * The bytes of a {@link ColumnLayout}, gathered row piece by row piece from the file they are laid out from wherever
 * they are asked for: a put reads its slices in parallel, a few MiB at a time, so no more than that is ever in memory.
 */
final class ColumnLayoutBytes implements PositionalSource {
    /** What {@link #sha256()} gathers at a time. */
    private static final long HASHED_PIECE = 4 << 20;

    private final MemorySegment file;
    private final long dataStart;
    private final List<TensorInfo> tensors;
    private final int worldSize;
    /** Where each tensor's shard starts in a rank's part of the layout; one more entry, the part's length. */
    private final long[] shardStarts;

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
        this.shardStarts = new long[tensors.size() + 1];
        for (int t = 0; t < tensors.size(); t++) {
            shardStarts[t + 1] = shardStarts[t] + tensors.get(t).byteSize() / worldSize;
        }
    }

    /** Bytes of the layout: the tensors' bytes. */
    long size() {
        return shardStarts[tensors.size()] * worldSize;
    }

    @Override
    public void read(long position, MemorySegment into) throws StoreException {
        if (position < 0 || position + into.byteSize() > size()) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "a column layout of " + size() + " bytes has no bytes "
                    + position + ".." + (position + into.byteSize()));
        }
        gather(position, into);
    }

    /** The layout's bytes from {@code position}, which with {@code into} lies within it. */
    private void gather(long position, MemorySegment into) {
        long rankBytes = shardStarts[tensors.size()];
        for (long done = 0; done < into.byteSize(); ) {
            long at = position + done;
            int rank = (int) (at / rankBytes);
            long inRank = at % rankBytes;
            int found = Arrays.binarySearch(shardStarts, inRank);
            // The tensor whose shard holds inRank: the last one starting at or before it (shards of no bytes are never laid out).
            int t = found >= 0 ? found : -found - 2;
            TensorInfo tensor = tensors.get(t);
            long rowBytes = tensor.byteSize() / tensor.shape().getFirst();
            long piece = rowBytes / worldSize;
            long inShard = inRank - shardStarts[t];
            long row = inShard / piece;
            long inPiece = inShard % piece;
            long n = Math.min(into.byteSize() - done, piece - inPiece);
            MemorySegment.copy(file, dataStart + tensor.begin() + row * rowBytes + rank * piece + inPiece, into, done, n);
            done += n;
        }
    }

    /** The SHA-256 of the whole layout, gathered in order a piece at a time. */
    String sha256() {
        Sha256 sha = new Sha256();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Math.min(HASHED_PIECE, Math.max(1, size())), 64);
            for (long done = 0; done < size(); done += buffer.byteSize()) {
                MemorySegment piece = buffer.asSlice(0, Math.min(buffer.byteSize(), size() - done));
                gather(done, piece);
                sha.update(piece);
            }
        }
        return sha.hex();
    }
}
