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
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.Checksum;

/**
 * A node whose pool file is on this host, mapped into this process: reads are memory copies, with
 * the checksum of each fully covered block computed on the destination right after its copy (while
 * it is still in cache), and of partly covered blocks on the pool before copying.
 */
public final class MappedNodeAccess implements NodeAccess {
    /** A strided read's rows are hashed this many bytes at a time, or a row at a time when one is more. */
    private static final long HASHED_PIECE = 256 << 10;

    private final PoolFile pool;
    /** {@link PoolFile#writesThroughMapping}, read from the mount table at the first write: a loader never writes. */
    private volatile Boolean writesThroughMapping;

    /** The mapping belongs to the caller, which closes it after this access. */
    public MappedNodeAccess(PoolFile pool) {
        this.pool = pool;
    }

    /** A pool mapped on this host has no connections to run out of: {@code onBusy} never applies. */
    @Override
    public void read(List<Range> ranges, List<BlockCheck> checks, MemorySegment dst, OnBusy onBusy) throws IOException {
        MemorySegment data = pool.data();
        long dstOffset = 0;
        for (Range range : ranges) {
            long copiedTo = range.offset();
            for (BlockCheck check : checks) {
                if (check.end() <= range.offset() || check.offset() >= range.end()) {
                    continue;
                }
                if (check.offset() > copiedTo) {
                    throw notCovered(range, copiedTo, check.offset());
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
                throw notCovered(range, copiedTo, range.end());
            }
            dstOffset += range.length();
        }
    }

    /** Checks are in pool order, each starting where the last ended: any gap would be bytes copied unchecked. */
    private static IllegalStateException notCovered(Range range, long from, long to) {
        return new IllegalStateException("read of pool range offset=" + range.offset() + " length=" + range.length()
                + " is not covered by its checksum blocks: no block checks bytes " + from + ".." + to);
    }

    @Override
    public int readStrided(Stride stride, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy)
            throws IOException {
        MemorySegment data = pool.data();
        for (BlockCheck check : checks) {
            verify(data.asSlice(check.offset(), check.length()), check);
        }
        Checksum running = Checksums.newCrc32c();
        long rowLength = stride.blockLength();
        // The packed rows are hashed a piece at a time, while the copies have left them in cache: a call per row
        // (rows of a few hundred bytes to a few KiB) cost more than the hashing.
        int rowsPerPiece = (int) Math.max(1, Math.min(stride.count(), HASHED_PIECE / Math.max(1, rowLength)));
        for (int first = 0; first < stride.count(); first += rowsPerPiece) {
            int rows = Math.min(rowsPerPiece, stride.count() - first);
            for (int row = first; row < first + rows; row++) {
                MemorySegment.copy(data, stride.rowOffset(row), dst, row * rowLength, rowLength);
            }
            if (hash) {
                running.update(dst.asSlice(first * rowLength, rows * rowLength).asByteBuffer());
            }
        }
        return (int) running.getValue();
    }

    /**
     * Off-heap bytes go in by {@code pwrite} where the pool's file system asks for it
     * ({@link PoolFile#writesThroughMapping}). Heap bytes (manifests, CRC tables: small) are copied
     * through the mapping, as NIO would stage them in a direct buffer of their size that it then keeps
     * per thread.
     */
    @Override
    public void write(long offset, MemorySegment src, Ticket grant) throws IOException {
        MemorySegment target = pool.data().asSlice(offset, src.byteSize());
        FileStore fileSystem = Files.getFileStore(pool.path());
        // A mapped write into a sparse file on a full disk faults the JVM, and a pwrite half done is as bad:
        // refuse it before either starts.
        long usable = fileSystem.getUsableSpace();
        if (usable < src.byteSize()) {
            throw new StoreException(StoreException.Code.NO_SPACE, "file system of pool " + pool.path() + " has " + usable
                    + " bytes free, need " + src.byteSize());
        }
        if (!src.isNative() || writesThroughMapping()) {
            MemorySegment.copy(src, 0, target, 0, src.byteSize());
            return;
        }
        // A channel of this write's own: an interrupt closes the channel it interrupts, and the pool's serves every
        // write of this client. Opened by path, so it must still be the pool the mapping is of.
        try (FileChannel file = FileChannel.open(pool.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            PoolFile.requireIdentity(file, pool.path(), pool.uuid());
            pool.writeInTurn(file, offset, src);
        }
    }

    private boolean writesThroughMapping() {
        Boolean known = writesThroughMapping;
        if (known == null) {
            // Two first writes at once may both read the table, and find the same.
            known = pool.writesThroughMapping();
            writesThroughMapping = known;
        }
        return known;
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
