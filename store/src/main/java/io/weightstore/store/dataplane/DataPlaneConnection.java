package io.weightstore.store.dataplane;

import io.weightstore.store.StoreException;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The client end of one data-plane connection. Not thread-safe: one request at a time, and the
 * caller returns the connection to its pool only after a request completed cleanly.
 */
public final class DataPlaneConnection implements AutoCloseable {
    private static final int CHUNK = 1 << 30;

    private final SocketChannel socket;
    private final String peer;
    private final ByteBuffer header = ByteBuffer.allocate(DataPlane.RESPONSE_HEADER_BYTES);
    private ByteBuffer request = ByteBuffer.allocate(4096);

    private DataPlaneConnection(SocketChannel socket, String peer) {
        this.socket = socket;
        this.peer = peer;
    }

    public static DataPlaneConnection open(String host, int port, String token, int connectTimeoutMillis) throws IOException {
        SocketChannel socket = SocketChannel.open();
        try {
            socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
            socket.socket().connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            DataPlaneConnection connection = new DataPlaneConnection(socket, host + ":" + port);
            connection.handshake(token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8));
            return connection;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private void handshake(byte[] token) throws IOException {
        if (token.length > DataPlane.MAX_TOKEN) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "token longer than " + DataPlane.MAX_TOKEN + " bytes");
        }
        ByteBuffer hello = ByteBuffer.allocate(8 + token.length).putInt(DataPlane.MAGIC).putShort(DataPlane.VERSION)
                .putShort((short) token.length).put(token).flip();
        writeFully(hello);
        ByteBuffer reply = ByteBuffer.allocate(8);
        readFully(reply);
        if (reply.getInt(0) != DataPlane.MAGIC) {
            throw new StoreException(StoreException.Code.PROTOCOL, peer + " is not a weightstore node (bad handshake magic)");
        }
        int status = reply.getShort(6);
        if (status == DataPlane.STATUS_AUTH) {
            throw new StoreException(StoreException.Code.UNAUTHENTICATED, "node " + peer + " refused the token");
        }
        if (status != DataPlane.STATUS_OK) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " refused the handshake: "
                    + DataPlane.statusName(status) + " (client protocol version " + DataPlane.VERSION + ")");
        }
    }

    public String peer() {
        return peer;
    }

    /** Sees payload bytes as they land, in order; {@code offset} is where {@code bytes} start in the destination. */
    @FunctionalInterface
    public interface Arrivals {
        Arrivals NONE = (offset, bytes) -> {};

        void arrived(long offset, MemorySegment bytes);
    }

    /** Reads {@code count} blocks of {@code blockLength} bytes, {@code stride} apart, packed into {@code dst}. */
    public void readStrided(long offset, long blockLength, long stride, int count, List<BlockCheck> checks, MemorySegment dst)
            throws IOException {
        ByteBuffer body = body(28 + 4 + checks.size() * DataPlane.CHECK_BYTES);
        body.putLong(offset).putLong(blockLength).putLong(stride).putInt(count);
        putChecks(body, checks);
        send(DataPlane.OP_READ_STRIDED, body);
        receive(dst, Arrivals.NONE);
    }

    /**
     * Reads ranges of the pool (one READ, or READ_RANGES for several) packed into {@code dst}, after
     * the node verified {@code nodeChecks}; {@code arrivals} sees the payload as it lands.
     */
    public void read(long[] offsets, long[] lengths, List<BlockCheck> nodeChecks, MemorySegment dst, Arrivals arrivals)
            throws IOException {
        int checkBytes = 4 + nodeChecks.size() * DataPlane.CHECK_BYTES;
        if (offsets.length == 1) {
            ByteBuffer body = body(16 + checkBytes).putLong(offsets[0]).putLong(lengths[0]);
            putChecks(body, nodeChecks);
            send(DataPlane.OP_READ, body);
        } else {
            ByteBuffer body = body(4 + offsets.length * DataPlane.RANGE_BYTES + checkBytes);
            body.putInt(offsets.length);
            for (int i = 0; i < offsets.length; i++) {
                body.putLong(offsets[i]).putLong(lengths[i]);
            }
            putChecks(body, nodeChecks);
            send(DataPlane.OP_READ_RANGES, body);
        }
        receive(dst, arrivals);
    }

    public void write(long offset, MemorySegment src) throws IOException {
        ByteBuffer body = body(16).putLong(offset).putLong(src.byteSize());
        send(DataPlane.OP_WRITE, body);
        for (long done = 0; done < src.byteSize(); done += CHUNK) {
            writeFully(src.asSlice(done, Math.min(CHUNK, src.byteSize() - done)).asByteBuffer());
        }
        receive(MemorySegment.NULL, Arrivals.NONE);
    }

    private ByteBuffer body(int length) throws StoreException {
        if (length > DataPlane.MAX_BODY) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "request of " + length + " bytes exceeds the frame limit "
                    + DataPlane.MAX_BODY);
        }
        if (request.capacity() < DataPlane.REQUEST_HEADER_BYTES + length) {
            request = ByteBuffer.allocate(DataPlane.REQUEST_HEADER_BYTES + length);
        }
        request.clear().position(DataPlane.REQUEST_HEADER_BYTES);
        return request;
    }

    private static void putChecks(ByteBuffer body, List<BlockCheck> checks) {
        body.putInt(checks.size());
        for (BlockCheck check : checks) {
            body.putLong(check.offset()).putInt(check.length()).putInt(check.crc32c());
        }
    }

    private void send(byte op, ByteBuffer body) throws IOException {
        int bodyLength = body.position() - DataPlane.REQUEST_HEADER_BYTES;
        body.put(0, op).put(1, (byte) 0).putShort(2, (short) 0).putInt(4, bodyLength).flip();
        writeFully(body);
    }

    /**
     * The response: its header, then exactly {@code dst.byteSize()} payload bytes, shown to
     * {@code arrivals} after each socket read so a check reads them soon after the kernel wrote them
     * rather than in a later pass. Reads are as large as the socket allows: watching costs no extra
     * system calls (capping them at cache-sized pieces was measured slower).
     */
    private void receive(MemorySegment dst, Arrivals arrivals) throws IOException {
        long payload = receiveHeader();
        if (payload != dst.byteSize()) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " announced " + payload + " bytes, expected "
                    + dst.byteSize());
        }
        for (long done = 0; done < dst.byteSize(); done += CHUNK) {
            ByteBuffer buffer = dst.asSlice(done, Math.min(CHUNK, dst.byteSize() - done)).asByteBuffer();
            while (buffer.hasRemaining()) {
                int start = buffer.position();
                if (socket.read(buffer) < 0) {
                    throw new EOFException("node " + peer + " closed the connection with " + buffer.remaining()
                            + " bytes outstanding");
                }
                arrivals.arrived(done + start, dst.asSlice(done + start, buffer.position() - start));
            }
        }
    }

    private long receiveHeader() throws IOException {
        readFully(header.clear());
        byte status = header.get(0);
        int messageLength = Short.toUnsignedInt(header.getShort(2));
        long payload = header.getLong(4);
        if (messageLength > DataPlane.MAX_MESSAGE) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " sent a message of " + messageLength + " bytes");
        }
        ByteBuffer message = ByteBuffer.allocate(messageLength);
        readFully(message);
        if (status != DataPlane.STATUS_OK) {
            String text = new String(message.array(), StandardCharsets.UTF_8);
            StoreException.Code code = switch (status) {
                case DataPlane.STATUS_CORRUPT -> StoreException.Code.CORRUPT;
                case DataPlane.STATUS_OUT_OF_RANGE -> StoreException.Code.INVALID_ARGUMENT;
                case DataPlane.STATUS_AUTH -> StoreException.Code.UNAUTHENTICATED;
                default -> StoreException.Code.PROTOCOL;
            };
            throw new StoreException(code, "node " + peer + ": " + DataPlane.statusName(status) + ": " + text);
        }
        return payload;
    }

    private void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (socket.read(dst) < 0) {
                throw new EOFException("node " + peer + " closed the connection with " + dst.remaining() + " bytes outstanding");
            }
        }
    }

    private void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            socket.write(src);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a socket we are done with; nothing useful to do about a failure.
        }
    }
}
