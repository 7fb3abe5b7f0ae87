package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import io.weightstore.store.pool.PoolFile;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.util.List;

/**
 * A node whose pool file is on this host, mapped into this process: reads are memory copies, with
 * the checksum of each fully covered block computed on the destination right after its copy (while
 * it is still in cache), and of partly covered blocks on the pool before copying.
 */
final class MappedNodeAccess implements NodeAccess {
    private final PoolFile pool;

    MappedNodeAccess(PoolFile pool) {
        this.pool = pool;
    }

    @Override
    public void read(long[] offsets, long[] lengths, List<BlockCheck> checks, MemorySegment dst) throws IOException {
        MemorySegment data = data();
        long dstOffset = 0;
        for (int r = 0; r < offsets.length; r++) {
            long start = offsets[r];
            long end = start + lengths[r];
            long copiedTo = start;
            for (BlockCheck check : checks) {
                long blockEnd = check.offset() + check.length();
                if (blockEnd <= start || check.offset() >= end) {
                    continue;
                }
                if (check.offset() >= start && blockEnd <= end) {
                    MemorySegment target = dst.asSlice(dstOffset + check.offset() - start, check.length());
                    MemorySegment.copy(data, check.offset(), target, 0, check.length());
                    verify(target, check);
                } else {
                    verify(data.asSlice(check.offset(), check.length()), check);
                    long from = Math.max(start, check.offset());
                    long to = Math.min(end, blockEnd);
                    MemorySegment.copy(data, from, dst, dstOffset + from - start, to - from);
                }
                copiedTo = Math.max(copiedTo, Math.min(end, blockEnd));
            }
            if (copiedTo < end) {
                throw new IllegalStateException("read of pool range offset=" + start + " length=" + lengths[r]
                        + " is not covered by its checksum blocks");
            }
            dstOffset += lengths[r];
        }
    }

    @Override
    public void readStrided(long offset, long blockLength, long stride, int count, List<BlockCheck> checks, MemorySegment dst)
            throws IOException {
        MemorySegment data = data();
        for (BlockCheck check : checks) {
            verify(data.asSlice(check.offset(), check.length()), check);
        }
        for (int i = 0; i < count; i++) {
            MemorySegment.copy(data, offset + i * stride, dst, i * blockLength, blockLength);
        }
    }

    @Override
    public void write(long offset, MemorySegment src) throws IOException {
        // A mapped write into a sparse file on a full disk faults the JVM: refuse it while we still can.
        long usable = Files.getFileStore(pool.path()).getUsableSpace();
        if (usable < src.byteSize()) {
            throw new StoreException(StoreException.Code.NO_SPACE, "file system of pool " + pool.path() + " has " + usable
                    + " bytes free, need " + src.byteSize());
        }
        MemorySegment.copy(src, 0, data(), offset, src.byteSize());
    }

    private MemorySegment data() {
        return pool.data();
    }

    private void verify(MemorySegment bytes, BlockCheck check) throws StoreException {
        int actual = Checksums.crc32c(bytes);
        if (actual != check.crc32c()) {
            throw new StoreException(StoreException.Code.CORRUPT, "checksum mismatch in pool " + pool.path() + " at offset "
                    + check.offset() + " (block of " + check.length() + " bytes): expected "
                    + Integer.toHexString(check.crc32c()) + ", found " + Integer.toHexString(actual));
        }
    }

    /** The mapping belongs to the client's table of local pools, which closes it. */
    @Override
    public void close() {}
}
