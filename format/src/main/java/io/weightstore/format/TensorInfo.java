package io.weightstore.format;

import java.util.List;
import java.util.Objects;

/**
 * One tensor of a safetensors file. {@code begin} and {@code end} are relative to the start of the
 * data section, as in the header; {@link SafetensorsHeader#dataStart()} turns them into file offsets.
 */
public record TensorInfo(String name, DType dtype, List<Long> shape, long begin, long end) {
    public TensorInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        shape = List.copyOf(shape);
    }

    public long numel() {
        long n = 1;
        for (long dim : shape) {
            n = Math.multiplyExact(n, dim);
        }
        return n;
    }

    public long byteSize() {
        return end - begin;
    }
}
