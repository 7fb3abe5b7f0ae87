package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How this client moves bytes to and from one node: over its data-plane socket, or, when the node's
 * pool file is on this host, by mapping it. Offsets are pool data offsets. Reads verify
 * {@code checks} (checksum blocks of the pool) before any byte reaches {@code dst}.
 */
sealed interface NodeAccess extends AutoCloseable permits SocketNodeAccess, MappedNodeAccess {
    /** Reads the ranges, packed in order into {@code dst}. */
    void read(long[] offsets, long[] lengths, List<BlockCheck> checks, MemorySegment dst) throws IOException;

    /** Reads {@code count} blocks of {@code blockLength} bytes {@code stride} apart, packed into {@code dst}. */
    void readStrided(long offset, long blockLength, long stride, int count, List<BlockCheck> checks, MemorySegment dst)
            throws IOException;

    void write(long offset, MemorySegment src) throws IOException;

    @Override
    void close();
}
