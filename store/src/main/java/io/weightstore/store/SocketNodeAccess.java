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
 * <p>Reads ask for exactly the wanted bytes, received straight into the caller's memory. A checksum
 * block wholly inside a wanted range is checked here as it arrives ({@link ArrivalCheck}), so the
 * check covers the network as well as the node's memory; a block only partly wanted (at the edge
 * of a range, or under a strided read) is checked by the node before it sends anything, so no
 * extra bytes cross the network to be checked.
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
        // Blocks wholly inside one wanted range are checked here as they arrive; blocks only partly
        // wanted are checked by the node, so exactly the wanted bytes cross the network.
        long[] dstOffsets = new long[offsets.length];
        for (int r = 1; r < offsets.length; r++) {
            dstOffsets[r] = dstOffsets[r - 1] + lengths[r - 1];
        }
        List<ArrivalCheck.Block> atClient = new ArrayList<>();
        List<BlockCheck> atNode = new ArrayList<>();
        for (BlockCheck block : checks) {
            int range = containingRange(block, offsets, lengths);
            if (range >= 0) {
                atClient.add(new ArrivalCheck.Block(dstOffsets[range] + block.offset() - offsets[range], block.length(),
                        block.crc32c(), block.offset()));
            } else {
                atNode.add(block);
            }
        }
        withConnection(c -> {
            ArrivalCheck check = new ArrivalCheck(c.peer(), atClient.toArray(ArrivalCheck.Block[]::new));
            c.read(offsets, lengths, atNode, dst, check);
            check.throwIfCorrupt();
        });
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
    public void close() {
        closed = true;
        DataPlaneConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            connection.close();
        }
    }
}
