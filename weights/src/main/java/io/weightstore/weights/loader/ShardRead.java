package io.weightstore.weights.loader;

import io.weightstore.format.TensorInfo;
import io.weightstore.weights.CheckpointException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes one rank reads of one tensor, relative to the tensor's first byte: {@code count} blocks
 * of {@code blockLength} bytes, {@code stride} apart from {@code offset}. One block is a plain
 * contiguous range (a whole tensor, or a dim-0 shard).
 *
 * @param shape the shape of what the rank receives
 */
public record ShardRead(long offset, long blockLength, long stride, int count, List<Long> shape) {
    public ShardRead {
        shape = List.copyOf(shape);
    }

    public long bytes() {
        return blockLength * count;
    }

    public boolean contiguous() {
        return count <= 1 || blockLength == stride;
    }

    /** All of {@code tensor}, as one range. */
    public static ShardRead whole(TensorInfo tensor) {
        return new ShardRead(0, tensor.byteSize(), tensor.byteSize(), 1, tensor.shape());
    }

    /**
     * Rank {@code rank} of {@code worldSize}'s part of {@code tensor} split along {@code split}. A split
     * that does not divide the dimension is an error naming the tensor, unless {@code allowUneven}: then
     * the ranks take ceil(dim / worldSize) each in turn until the dimension runs out, so the last ranks
     * may get fewer, or none (5 over 4: 2, 2, 1, 0).
     */
    static ShardRead of(TensorInfo tensor, Split split, int rank, int worldSize, boolean allowUneven) throws CheckpointException {
        if (split == Split.REPLICATE || worldSize == 1) {
            return whole(tensor);
        }
        int dim = split.dimension();
        List<Long> shape = tensor.shape();
        if (shape.size() <= dim) {
            throw invalid(tensor, "has rank " + shape.size() + ", so it cannot be split along dim " + dim);
        }
        long size = shape.get(dim);
        long part;
        if (size % worldSize == 0) {
            part = size / worldSize;
        } else if (allowUneven) {
            part = Math.ceilDiv(size, worldSize);
        } else {
            throw invalid(tensor, "dim " + dim + " of shape " + shape + " does not split evenly over " + worldSize
                    + " ranks; allow an uneven last shard in the plan to load it anyway");
        }
        long start = Math.min(size, rank * part);
        return of(tensor, dim, start, Math.min(part, size - start));
    }

    /**
     * The elements {@code start .. start + length} of dimension {@code dim} of {@code tensor}, across
     * all other dimensions: for dim 0 one contiguous range, for a later dim one block per outer index.
     */
    public static ShardRead of(TensorInfo tensor, int dim, long start, long length) throws CheckpointException {
        List<Long> shape = tensor.shape();
        if (dim < 0 || dim >= shape.size() || start < 0 || length < 0 || start + length > shape.get(dim)) {
            throw invalid(tensor, "has shape " + shape + ", so dim " + dim + " has no elements " + start + ".." + (start + length));
        }
        long size = shape.get(dim);
        List<Long> received = new ArrayList<>(shape);
        received.set(dim, length);
        // A tensor of no elements has no bytes to place a shard in (a dim of 0 elsewhere would put it past its end), and
        // with one dim of 0 the others may multiply past a long: every rank reads nothing.
        if (shape.contains(0L)) {
            return new ShardRead(0, 0, 0, 0, received);
        }
        long outer = 1;
        for (int i = 0; i < dim; i++) {
            outer *= shape.get(i);
        }
        if (dim > 0 && outer > Integer.MAX_VALUE) {
            throw invalid(tensor, "has shape " + shape + ": split along dim " + dim + " it is " + outer + " blocks, one per"
                    + " index of the dims before it, and a load reads at most " + Integer.MAX_VALUE);
        }
        long innerElements = 1;
        for (int i = dim + 1; i < shape.size(); i++) {
            innerElements *= shape.get(i);
        }
        long innerBits = innerElements * tensor.dtype().bits();
        if ((start * innerBits) % 8 != 0 || (length * innerBits) % 8 != 0) {
            throw invalid(tensor, "of " + tensor.dtype() + " cannot be split along dim " + dim + " on byte boundaries");
        }
        long inner = innerBits / 8;
        return new ShardRead(start * inner, length * inner, size * inner, (int) outer, received);
    }

    private static CheckpointException invalid(TensorInfo tensor, String why) {
        return new CheckpointException(CheckpointException.Code.INVALID, "tensor " + tensor.name() + " " + why);
    }
}
