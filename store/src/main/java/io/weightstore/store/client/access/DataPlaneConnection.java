package io.weightstore.store.client.access;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The client end of one data-plane connection. Not thread-safe: one request at a time, and the
 * caller returns the connection to its pool only after a request completed cleanly. Every step has a
 * deadline: the connect, the handshake, and each exchange (scaled by its bytes by the caller); a
 * node that misses one has the connection closed under it, and the caller gets a timeout.
 */
final class DataPlaneConnection implements AutoCloseable {
    private static final int CHUNK = 1 << 30;

    /** Sees payload bytes as they land, in order; {@code offset} is where {@code bytes} start in the destination. */
    @FunctionalInterface
    interface Arrivals {
        Arrivals NONE = (offset, bytes) -> {};

        void arrived(long offset, MemorySegment bytes);
    }

    private final SocketChannel socket;
    private final String peer;
    private final DeadlineTimer timer;
    private final ByteBuffer header = ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES);
    private ByteBuffer request = ByteBuffer.allocate(4096);

    private DataPlaneConnection(SocketChannel socket, String peer, DeadlineTimer timer) {
        this.socket = socket;
        this.peer = peer;
        this.timer = timer;
    }

    /** Connects and shakes hands, each within {@code timeout}. */
    static DataPlaneConnection open(String host, int port, String token, Duration timeout, DeadlineTimer timer) throws IOException {
        SocketChannel socket = SocketChannel.open();
        try {
            socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
            socket.socket().connect(new InetSocketAddress(host, port), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            DataPlaneConnection connection = new DataPlaneConnection(socket, host + ":" + port, timer);
            connection.within(timeout, "handshake", () -> connection.handshake(token));
            return connection;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** One step of the protocol on this connection. */
    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    /** Runs {@code step}, closing the connection under it if it outlives {@code timeout}. */
    private void within(Duration timeout, String what, Step step) throws IOException {
        try (DeadlineTimer.Deadline deadline = timer.arm(socket, timeout)) {
            try {
                step.run();
            } catch (IOException e) {
                if (deadline.expired()) {
                    SocketTimeoutException late = new SocketTimeoutException("node " + peer + " did not complete " + what + " within "
                            + timeout.toMillis() + " ms");
                    late.initCause(e);
                    throw late;
                }
                throw e;
            }
        }
    }

    private void handshake(String token) throws IOException {
        writeFully(FrameCodec.encodeHello(token));
        ByteBuffer reply = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
        readFully(reply);
        Status status;
        try {
            status = FrameCodec.decodeHelloReply(reply);
        } catch (FrameException e) {
            throw new StoreException(StoreException.Code.PROTOCOL, peer + ": " + e.getMessage());
        }
        if (status == Status.AUTH) {
            throw new StoreException(StoreException.Code.UNAUTHENTICATED, "node " + peer + " refused the token");
        }
        if (status == Status.BUSY) {
            throw new StoreException(StoreException.Code.UNAVAILABLE, "node " + peer + " is at its limit of connections");
        }
        if (status != Status.OK) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " refused the handshake: " + status
                    + " (client protocol version " + FrameCodec.VERSION + ")");
        }
    }

    String peer() {
        return peer;
    }

    /**
     * Sends {@code request} (with {@code payload} for a write) and takes the answer: exactly
     * {@code dst.byteSize()} payload bytes, shown to {@code arrivals} after each socket read so a check
     * reads them soon after the kernel wrote them rather than in a later pass. Reads are as large as
     * the socket allows: watching costs no extra system calls (capping them at cache-sized pieces was
     * measured slower).
     */
    void exchange(Request request, MemorySegment payload, MemorySegment dst, Arrivals arrivals, Duration timeout)
            throws IOException {
        within(timeout, request.op() + " of " + Math.max(payload.byteSize(), dst.byteSize()) + " bytes",
                () -> exchange(request, payload, dst, arrivals));
    }

    private void exchange(Request request, MemorySegment payload, MemorySegment dst, Arrivals arrivals) throws IOException {
        this.request = FrameCodec.encode(request, this.request);
        writeFully(this.request);
        for (long done = 0; done < payload.byteSize(); done += CHUNK) {
            writeFully(payload.asSlice(done, Math.min(CHUNK, payload.byteSize() - done)).asByteBuffer());
        }
        long announced = receiveHeader();
        if (announced != dst.byteSize()) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " announced " + announced + " bytes, expected "
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
        FrameCodec.ResponseHeader response;
        try {
            response = FrameCodec.decodeResponseHeader(header);
        } catch (FrameException e) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + ": " + e.getMessage());
        }
        ByteBuffer message = ByteBuffer.allocate(response.messageLength());
        readFully(message);
        if (response.status() != Status.OK) {
            String text = new String(message.array(), StandardCharsets.UTF_8);
            StoreException.Code code = switch (response.status()) {
                case CORRUPT -> StoreException.Code.CORRUPT;
                case OUT_OF_RANGE -> StoreException.Code.INVALID_ARGUMENT;
                case AUTH -> StoreException.Code.UNAUTHENTICATED;
                default -> StoreException.Code.PROTOCOL;
            };
            throw new StoreException(code, "node " + peer + ": " + response.status() + ": " + text);
        }
        return response.payloadLength();
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
