package io.weightstore.store.client.access;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;
import java.util.List;
import java.util.zip.Checksum;

/**
 * Verifies checksum blocks of a payload as its bytes arrive off the socket: each arrival feeds the
 * running CRC of the block it belongs to, so every byte is checked once, soon after it lands, with
 * reads as large as the socket gives. A mismatch is remembered, not thrown, so the caller can take
 * the rest of the payload and keep the connection in step.
 */
public final class ArrivalCheck implements DataPlaneConnection.Arrivals {
    /** A block to check: its place in the destination, and where it lies in the node's pool for messages. */
    public record Block(long dstOffset, int length, int crc32c, long poolOffset) {}

    private final String peer;
    private final Block[] blocks;
    private final Checksum running = Checksums.newCrc32c();
    private int next;
    private String mismatch;

    public ArrivalCheck(String peer, List<Block> blocks) {
        this.peer = peer;
        this.blocks = blocks.stream().sorted(Comparator.comparingLong(Block::dstOffset)).toArray(Block[]::new);
    }

    @Override
    public void arrived(long offset, MemorySegment bytes) {
        long end = offset + bytes.byteSize();
        while (next < blocks.length && blocks[next].dstOffset() < end) {
            Block block = blocks[next];
            long blockEnd = block.dstOffset() + block.length();
            // Arrivals are contiguous, so the block's bytes before offset were fed already.
            long from = Math.max(offset, block.dstOffset());
            long to = Math.min(end, blockEnd);
            if (from < to) {
                running.update(bytes.asSlice(from - offset, to - from).asByteBuffer());
            }
            if (to < blockEnd) {
                return;
            }
            int actual = (int) running.getValue();
            if (actual != block.crc32c() && mismatch == null) {
                mismatch = "checksum mismatch from node " + peer + " at pool offset " + block.poolOffset() + " (block of "
                        + block.length() + " bytes): expected " + Integer.toHexString(block.crc32c()) + ", found "
                        + Integer.toHexString(actual);
            }
            running.reset();
            next++;
        }
    }

    /** Throws if a block did not match; call after the whole payload arrived. */
    public void throwIfCorrupt() throws StoreException {
        if (next < blocks.length) {
            throw new IllegalStateException("payload ended before block " + next + " of " + blocks.length + " was checked");
        }
        if (mismatch != null) {
            throw new StoreException(StoreException.Code.CORRUPT, mismatch);
        }
    }
}
