package io.weightstore.store.api;

/** A byte range of an object: {@code length} bytes from {@code offset}. */
public record Range(long offset, long length) {
    public Range {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("range must be non-negative: offset=" + offset + " length=" + length);
        }
    }

    public long end() {
        return offset + length;
    }
}
