package io.weightstore.store.checksum;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * Slice checksums: a CRC32C per checksum block of a slice, so a range read verifies only the blocks
 * it touches instead of a whole slice. Computed by the store's native library where it loads (see
 * {@link #implementation()}), else by the JDK's hardware-accelerated CRC32C; both give the same values.
 */
public final class Checksums {
    /** Default checksum block: small enough that a short read verifies little, large enough to keep metadata small. */
    public static final int DEFAULT_BLOCK_SIZE = 1 << 20;

    private Checksums() {}

    public static int crc32c(MemorySegment bytes) {
        if (NativeCrc32c.available()) {
            return NativeCrc32c.update(0, bytes);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.asByteBuffer());
        return (int) crc.getValue();
    }

    /** A running CRC32C, for bytes that arrive in pieces. */
    public static Checksum newCrc32c() {
        return NativeCrc32c.available() ? new NativeCrc32c() : new CRC32C();
    }

    /** Which CRC32C this process computes with, for benchmark reports and diagnostics. */
    public static String implementation() {
        return NativeCrc32c.description();
    }

    /**
     * The CRC32C of each of {@code count} cells of {@code cellBytes} bytes that lie one after another
     * from the start of {@code bytes}, into the first {@code count} entries of {@code crcs}: a tensor's
     * rows cut into the cells of a column split, hashed in one call instead of one per cell.
     */
    public static void cellCrcs(MemorySegment bytes, long cellBytes, int count, int[] crcs) {
        if (cellBytes < 0 || count < 0 || count > crcs.length || (count > 0 && cellBytes > bytes.byteSize() / count)) {
            throw new IllegalArgumentException("cells must lie within bytes and crcs: cellBytes=" + cellBytes + ", count=" + count
                    + ", bytes.byteSize()=" + bytes.byteSize() + ", crcs.length=" + crcs.length);
        }
        if (NativeCrc32c.available()) {
            NativeCrc32c.cells(bytes, cellBytes, count, crcs);
            return;
        }
        for (int i = 0; i < count; i++) {
            crcs[i] = crc32c(bytes.asSlice(i * cellBytes, cellBytes));
        }
    }

    /** CRCs of each block of {@code slice}, in order; the last block may be short. */
    public static int[] blockCrcs(MemorySegment slice, int blockSize) {
        int blocks = (int) Math.ceilDiv(slice.byteSize(), (long) blockSize);
        int[] crcs = new int[blocks];
        for (int i = 0; i < blocks; i++) {
            long start = (long) i * blockSize;
            crcs[i] = crc32c(slice.asSlice(start, Math.min(blockSize, slice.byteSize() - start)));
        }
        return crcs;
    }
}
