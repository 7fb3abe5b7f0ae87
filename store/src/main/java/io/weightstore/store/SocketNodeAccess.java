package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import io.weightstore.store.dataplane.DataPlaneConnection;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/** A node reached over its data-plane port, through a pool of idle connections. */
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
            // The node answered with an error frame: the connection is still in step unless the protocol broke.
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
        if (offsets.length == 1) {
            withConnection(c -> c.read(offsets[0], checks, dst));
        } else {
            withConnection(c -> c.readRanges(offsets, lengths, checks, dst));
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
