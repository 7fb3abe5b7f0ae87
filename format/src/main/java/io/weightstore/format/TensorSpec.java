package io.weightstore.format;

import java.util.List;
import java.util.Objects;

/** A tensor to be written: its name, dtype and shape, before it has a place in a file. */
public record TensorSpec(String name, DType dtype, List<Long> shape) {
    public TensorSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        shape = List.copyOf(shape);
        for (long dim : shape) {
            if (dim < 0) {
                throw new IllegalArgumentException("shape dims must be >= 0: name=" + name + " shape=" + shape);
            }
        }
    }

    public long numel() {
        long n = 1;
        for (long dim : shape) {
            n = Math.multiplyExact(n, dim);
        }
        return n;
    }

    public long byteSize() {
        return dtype.byteSize(numel());
    }
}
