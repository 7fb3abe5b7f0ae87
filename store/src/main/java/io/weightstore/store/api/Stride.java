package io.weightstore.store.api;

/**
 * {@code count} rows of {@code blockLength} bytes, {@code stride} apart, starting at {@code offset}:
 * one column shard of a row-major matrix. A single row, or rows that touch, is a contiguous range.
 */
public record Stride(long offset, long blockLength, long stride, int count) {
    public Stride {
        if (offset < 0 || blockLength < 0 || stride < blockLength || count < 0) {
            throw new IllegalArgumentException("a stride needs offset >= 0 and 0 <= blockLength <= stride and count >= 0: offset="
                    + offset + " blockLength=" + blockLength + " stride=" + stride + " count=" + count);
        }
        // The first test on its own: with a last row past Long.MAX_VALUE by less than the stride, the quotient below rounds to 0,
        // and one row passed, its end() negative, so a range check against it passed too.
        if (count > 0 && (offset > Long.MAX_VALUE - blockLength
                || stride > 0 && (Long.MAX_VALUE - offset - blockLength) / stride < count - 1L)) {
            throw new IllegalArgumentException("stride overflows: offset=" + offset + " stride=" + stride + " count=" + count);
        }
    }

    /** Bytes delivered: {@code blockLength * count}. */
    public long bytes() {
        return blockLength * count;
    }

    /** From the first byte of the first row to the last byte of the last row; 0 when there are no rows. */
    public long span() {
        return count == 0 ? 0 : (count - 1L) * stride + blockLength;
    }

    public long end() {
        return offset + span();
    }

    /** Start of row {@code row}. */
    public long rowOffset(int row) {
        return offset + row * stride;
    }

    public boolean contiguous() {
        return count <= 1 || blockLength == stride;
    }
}
