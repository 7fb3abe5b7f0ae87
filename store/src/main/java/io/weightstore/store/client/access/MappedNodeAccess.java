package io.weightstore.store.client.access;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.util.List;
import java.util.zip.Checksum;

/**
 * A node whose pool file is on this host, mapped into this process: reads are memory copies, with
 * the checksum of each fully covered block computed on the destination right after its copy (while
 * it is still in cache), and of partly covered blocks on the pool before copying.
 */
public final class MappedNodeAccess implements NodeAccess {
    private final PoolFile pool;

    /** The mapping belongs to the caller, which closes it after this access. */
    public MappedNodeAccess(PoolFile pool) {
        this.pool = pool;
    }

    @Override
    public void read(List<Range> ranges, List<BlockCheck> checks, MemorySegment dst) throws IOException {
        MemorySegment data = pool.data();
        long dstOffset = 0;
        for (Range range : ranges) {
            long copiedTo = range.offset();
            for (BlockCheck check : checks) {
                if (check.end() <= range.offset() || check.offset() >= range.end()) {
                    continue;
                }
                if (check.offset() >= range.offset() && check.end() <= range.end()) {
                    MemorySegment target = dst.asSlice(dstOffset + check.offset() - range.offset(), check.length());
                    MemorySegment.copy(data, check.offset(), target, 0, check.length());
                    verify(target, check);
                } else {
                    verify(data.asSlice(check.offset(), check.length()), check);
                    long from = Math.max(range.offset(), check.offset());
                    long to = Math.min(range.end(), check.end());
                    MemorySegment.copy(data, from, dst, dstOffset + from - range.offset(), to - from);
                }
                copiedTo = Math.max(copiedTo, Math.min(range.end(), check.end()));
            }
            if (copiedTo < range.end()) {
                throw new IllegalStateException("read of pool range offset=" + range.offset() + " length=" + range.length()
                        + " is not covered by its checksum blocks");
            }
            dstOffset += range.length();
        }
    }

    @Override
    public int readStrided(Stride stride, List<BlockCheck> checks, MemorySegment dst, boolean hash) throws IOException {
        MemorySegment data = pool.data();
        for (BlockCheck check : checks) {
            verify(data.asSlice(check.offset(), check.length()), check);
        }
        Checksum running = Checksums.newCrc32c();
        for (int row = 0; row < stride.count(); row++) {
            MemorySegment copied = dst.asSlice(row * stride.blockLength(), stride.blockLength());
            MemorySegment.copy(data, stride.rowOffset(row), copied, 0, stride.blockLength());
            if (hash) {
                running.update(copied.asByteBuffer());
            }
        }
        return (int) running.getValue();
    }

    @Override
    public void write(long offset, MemorySegment src, Ticket grant) throws IOException {
        // A mapped write into a sparse file on a full disk faults the JVM: refuse it while we still can.
        long usable = Files.getFileStore(pool.path()).getUsableSpace();
        if (usable < src.byteSize()) {
            throw new StoreException(StoreException.Code.NO_SPACE, "file system of pool " + pool.path() + " has " + usable
                    + " bytes free, need " + src.byteSize());
        }
        MemorySegment.copy(src, 0, pool.data(), offset, src.byteSize());
    }

    @Override
    public void verify(List<BlockCheck> checks) throws IOException {
        MemorySegment data = pool.data();
        for (BlockCheck check : checks) {
            if (check.offset() > data.byteSize() || check.length() > data.byteSize() - check.offset()) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "check block offset=" + check.offset() + " length="
                        + check.length() + " is outside pool " + pool.path() + " of " + data.byteSize() + " bytes");
            }
            verify(data.asSlice(check.offset(), check.length()), check);
        }
    }

    private void verify(MemorySegment bytes, BlockCheck check) throws StoreException {
        int actual = Checksums.crc32c(bytes);
        if (actual != check.crc32c()) {
            throw new StoreException(StoreException.Code.CORRUPT, "checksum mismatch in pool " + pool.path() + " at offset "
                    + check.offset() + " (block of " + check.length() + " bytes): expected "
                    + Integer.toHexString(check.crc32c()) + ", found " + Integer.toHexString(actual));
        }
    }

    @Override
    public void close() {}
}
