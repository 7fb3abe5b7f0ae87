package io.weightstore.weights.loader;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.checksum.Crc32cCombine;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CRC32C of a contiguous range of an object that the store client just read, without a second
 * pass over its bytes: every checksum block wholly inside a range the client reads is checked by the
 * client itself as the bytes arrive off the socket, or as they are copied out of a pool on this host,
 * so those blocks hash to the object's recorded block CRCs, which are joined here; only the pieces of
 * the blocks at the range's two ends, which the node checked, are hashed. Compared with the CRC the
 * import recorded for a tensor or a rank's rows, the result ties those ends and the block CRCs to it,
 * as hashing every byte again would.
 */
final class CheckedBlocks {
    private static final Map<Integer, Crc32cCombine> JOINERS = new ConcurrentHashMap<>();

    private CheckedBlocks() {}

    /** The CRC32C of {@code bytes}, which hold {@code object}'s bytes from {@code start} on, as read through the client. */
    static int crc32c(ObjectMeta object, long start, MemorySegment bytes) {
        long end = start + bytes.byteSize();
        if (start < 0 || end > object.size()) {
            throw new IllegalArgumentException("range outside object " + object.key() + " of " + object.size() + " bytes: start=" + start
                    + " length=" + bytes.byteSize());
        }
        int blockSize = object.checksumBlockSize();
        Crc32cCombine wholeBlock = JOINERS.computeIfAbsent(blockSize, Crc32cCombine::forLength);
        int crc = 0; // the CRC32C of nothing, which any CRC joins onto unchanged
        for (SliceMeta slice : object.slices()) {
            long sliceEnd = slice.offset() + slice.length();
            if (sliceEnd <= start || slice.offset() >= end) {
                continue;
            }
            for (int block = (int) ((Math.max(start, slice.offset()) - slice.offset()) / blockSize); ; block++) {
                long blockStart = slice.offset() + (long) block * blockSize;
                if (blockStart >= Math.min(end, sliceEnd)) {
                    break;
                }
                long blockEnd = Math.min(blockStart + blockSize, sliceEnd);
                long from = Math.max(blockStart, start);
                long to = Math.min(blockEnd, end);
                if (from == blockStart && to == blockEnd) {
                    int recorded = slice.crcs().get(block);
                    crc = blockEnd - blockStart == blockSize ? wholeBlock.combine(crc, recorded)
                            : Crc32cCombine.combine(crc, recorded, blockEnd - blockStart);
                } else {
                    crc = Crc32cCombine.combine(crc, Checksums.crc32c(bytes.asSlice(from - start, to - from)), to - from);
                }
            }
        }
        return crc;
    }
}
