package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import io.weightstore.store.dataplane.DataPlaneConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A node reached over its data-plane port, through a pool of idle connections.
 *
 * <p>Contiguous reads fetch whole checksum blocks and check each one as it arrives, while it is
 * still in cache: verification then covers the network as well as the node's memory, and costs no
 * extra pass over memory. A block that lies inside one wanted range is received straight into the
 * caller's memory; a block at the edge of a range goes through the connection's scratch buffer.
 * Strided reads want a fraction of every block they touch, so the node checks those blocks and
 * sends only the rows.
 */
final class SocketNodeAccess implements NodeAccess {
    private static final int CONNECT_TIMEOUT_MILLIS = 3000;

    /** One request on a borrowed connection. */
    @FunctionalInterface
    private interface Request {
        void run(DataPlaneConnection connection) throws IOException;
    }

    private final String host;
    private final int port;
    private final String token;
    private final ConcurrentLinkedDeque<DataPlaneConnection> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    SocketNodeAccess(String host, int port, String token) {
        this.host = host;
        this.port = port;
        this.token = token;
    }

    private void withConnection(Request request) throws IOException {
        if (closed) {
            throw new IllegalStateException("node access to " + host + ":" + port + " is closed");
        }
        DataPlaneConnection connection = idle.pollFirst();
        if (connection == null) {
            connection = DataPlaneConnection.open(host, port, token, CONNECT_TIMEOUT_MILLIS);
        }
        try {
            request.run(connection);
        } catch (StoreException e) {
            // The node answered with an error frame, or a block failed its check after the whole
            // payload was taken: the connection is still in step unless the protocol broke.
            if (e.code() == StoreException.Code.PROTOCOL) {
                connection.close();
            } else {
                idle.offerFirst(connection);
            }
            throw e;
        } catch (IOException | RuntimeException e) {
            connection.close();
            throw e;
        }
        idle.offerFirst(connection);
    }

    @Override
    public void read(long[] offsets, long[] lengths, List<BlockCheck> checks, MemorySegment dst) throws IOException {
        List<long[]> runs = runs(checks);
        long[] runOffsets = new long[runs.size()];
        long[] runLengths = new long[runs.size()];
        for (int i = 0; i < runs.size(); i++) {
            runOffsets[i] = runs.get(i)[0];
            runLengths[i] = runs.get(i)[1];
        }
        long[] dstOffsets = new long[offsets.length];
        for (int i = 1; i < offsets.length; i++) {
            dstOffsets[i] = dstOffsets[i - 1] + lengths[i - 1];
        }
        withConnection(c -> {
            long payload = c.startRead(runOffsets, runLengths);
            long expected = checks.stream().mapToLong(BlockCheck::length).sum();
            if (payload != expected) {
                throw new StoreException(StoreException.Code.PROTOCOL, "node " + c.peer() + " announced " + payload
                        + " bytes, expected " + expected);
            }
            String corrupt = null;
            for (BlockCheck block : checks) {
                int direct = containingRange(block, offsets, lengths);
                MemorySegment target = direct >= 0
                        ? dst.asSlice(dstOffsets[direct] + block.offset() - offsets[direct], block.length())
                        : c.scratch(block.length());
                c.receivePayload(target);
                int actual = Checksums.crc32c(target);
                if (actual != block.crc32c()) {
                    corrupt = corrupt != null ? corrupt : "checksum mismatch from node " + c.peer() + " at pool offset "
                            + block.offset() + " (block of " + block.length() + " bytes): expected "
                            + Integer.toHexString(block.crc32c()) + ", found " + Integer.toHexString(actual);
                } else if (direct < 0) {
                    copyOverlaps(target, block.offset(), offsets, lengths, dstOffsets, dst);
                }
            }
            if (corrupt != null) {
                throw new StoreException(StoreException.Code.CORRUPT, corrupt);
            }
        });
    }

    /** Consecutive blocks merged into ranges to request. */
    private static List<long[]> runs(List<BlockCheck> checks) {
        List<long[]> runs = new ArrayList<>();
        for (BlockCheck block : checks) {
            long[] last = runs.isEmpty() ? null : runs.getLast();
            if (last != null && last[0] + last[1] == block.offset()) {
                last[1] += block.length();
            } else {
                runs.add(new long[] {block.offset(), block.length()});
            }
        }
        return runs;
    }

    /** The one wanted range that holds the whole block and is the only one touching it, or -1. */
    private static int containingRange(BlockCheck block, long[] offsets, long[] lengths) {
        long start = block.offset();
        long end = start + block.length();
        int found = -1;
        for (int i = 0; i < offsets.length; i++) {
            long rangeEnd = offsets[i] + lengths[i];
            if (offsets[i] < end && start < rangeEnd) {
                if (found >= 0 || offsets[i] > start || rangeEnd < end) {
                    return -1;
                }
                found = i;
            }
        }
        return found;
    }

    private static void copyOverlaps(MemorySegment block, long blockOffset, long[] offsets, long[] lengths, long[] dstOffsets,
            MemorySegment dst) {
        long blockEnd = blockOffset + block.byteSize();
        for (int i = 0; i < offsets.length; i++) {
            long from = Math.max(offsets[i], blockOffset);
            long to = Math.min(offsets[i] + lengths[i], blockEnd);
            if (from < to) {
                MemorySegment.copy(block, from - blockOffset, dst, dstOffsets[i] + from - offsets[i], to - from);
            }
        }
    }

    @Override
    public void readStrided(long offset, long blockLength, long stride, int count, List<BlockCheck> checks, MemorySegment dst)
            throws IOException {
        withConnection(c -> c.readStrided(offset, blockLength, stride, count, checks, dst));
    }

    @Override
    public void write(long offset, MemorySegment src) throws IOException {
        withConnection(c -> c.write(offset, src));
    }

    @Override
    public boolean local() {
        return false;
    }

    @Override
    public void close() {
        closed = true;
        DataPlaneConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            connection.close();
        }
    }
}
