package io.weightstore.weights.loader;

import io.weightstore.format.DType;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One tensor as a rank receives it. {@code data} is off-heap and valid only until the stream moves
 * to the next tensor; copy what must outlive that.
 *
 * @param shape the shape of this rank's part (the full shape when the tensor is replicated)
 * @param fullShape the tensor's shape in the checkpoint
 */
public record Tensor(String name, DType dtype, List<Long> shape, List<Long> fullShape, Split split, String file,
        MemorySegment data) {}
