package io.weightstore.store.client.access;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.wire.BlockCheck;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How this client moves bytes to and from one node: over its data-plane socket, or, when the node's
 * pool file is on this host, by mapping it. Offsets are pool data offsets. Reads verify
 * {@code checks} (checksum blocks of the pool that cover what is read) before any byte reaches
 * {@code dst}, or as the bytes land.
 */
public sealed interface NodeAccess extends AutoCloseable permits SocketNodeAccess, MappedNodeAccess {
    /** Reads the ranges, packed in order into {@code dst}, waiting out a busy node. */
    default void read(List<Range> ranges, List<BlockCheck> checks, MemorySegment dst) throws IOException {
        read(ranges, checks, dst, OnBusy.WAIT);
    }

    /** Reads the ranges, packed in order into {@code dst}; a busy node is waited out or not as {@code onBusy} says. */
    void read(List<Range> ranges, List<BlockCheck> checks, MemorySegment dst, OnBusy onBusy) throws IOException;

    /**
     * Reads the rows of {@code stride}, packed into {@code dst}; returns their CRC32C, hashed as they
     * landed, when {@code hash}, else 0. A busy node is waited out or not as {@code onBusy} says.
     */
    int readStrided(Stride stride, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy) throws IOException;

    /** Writes {@code src} at {@code offset}; a secure node wants the master's {@code grant} for exactly that place. */
    void write(long offset, MemorySegment src, Ticket grant) throws IOException;

    /**
     * Checks {@code checks} where they lie, on the node, and moves no data: how a replica is
     * verified whole without a byte crossing the network. Fails with CORRUPT on the first mismatch.
     */
    void verify(List<BlockCheck> checks) throws IOException;

    @Override
    void close();
}
