package io.weightstore.store;

import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;

/**
 * Slice checksums: a CRC32C per checksum block of a slice, so a range read verifies only the blocks
 * it touches instead of a whole slice. The JDK's CRC32C is hardware accelerated.
 */
public final class Checksums {
    /** Default checksum block: small enough that a short read verifies little, large enough to keep metadata small. */
    public static final int DEFAULT_BLOCK_SIZE = 1 << 20;

    private Checksums() {}

    public static int crc32c(MemorySegment bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.asByteBuffer());
        return (int) crc.getValue();
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
