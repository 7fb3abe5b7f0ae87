package io.weightstore.store.client.access;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.HelloReply;
import io.weightstore.store.wire.MacTransport;
import io.weightstore.store.wire.PlainTransport;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import io.weightstore.store.wire.TcpSockets;
import io.weightstore.store.wire.TlsEndpoint;
import io.weightstore.store.wire.TlsTransport;
import io.weightstore.store.wire.Transport;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * The client end of one data-plane connection. Not thread-safe: one request at a time, and the
 * caller returns the connection to its pool only after a request completed cleanly. Every step has a
 * deadline: the connect, the handshake, and each exchange (scaled by its bytes by the caller); a
 * node that misses one has the connection closed under it, and the caller gets a timeout.
 */
final class DataPlaneConnection implements AutoCloseable {
    private static final int CHUNK = 1 << 30;
    /** Payloads go out in pieces this size, each a sign of progress for the stall deadline. */
    private static final int WRITE_PIECE = 1 << 20;

    /** Sees payload bytes as they land, in order; {@code offset} is where {@code bytes} start in the destination. */
    @FunctionalInterface
    interface Arrivals {
        Arrivals NONE = (offset, bytes) -> {};

        void arrived(long offset, MemorySegment bytes);
    }

    private final SocketChannel socket;
    private Transport transport;
    private final String peer;
    private final DeadlineTimer timer;
    private final ByteBuffer header = ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES);
    private ByteBuffer request = ByteBuffer.allocate(4096);

    private final Duration stall;
    private DeadlineTimer.Deadline current;
    /** Whether a byte of the node's answer to the current exchange has arrived. */
    private boolean answered;

    private DataPlaneConnection(SocketChannel socket, String peer, DeadlineTimer timer, Duration stall) {
        this.stall = stall;
        this.socket = socket;
        this.peer = peer;
        this.timer = timer;
    }

    /**
     * Connects and shakes hands, each within {@code timeout}: TLS first when {@code tls} is present
     * (the node must prove to be the node the master named), then the hello with {@code session},
     * which the node refuses unless it serves {@code pool}.
     * What the connection sends goes out under {@code congestionControl}, or the host's default where the kernel refuses it.
     */
    static DataPlaneConnection open(String host, int port, Optional<TlsEndpoint> tls, UUID pool, Ticket session, Duration timeout,
            DeadlineTimer timer, CongestionControl congestionControl) throws IOException {
        return open(HostLookup.JDK, host, port, tls, pool, session, timeout, timer, congestionControl);
    }

    /** As above, the host looked up by {@code lookup}, within the same {@code timeout} as the connect that follows it. */
    static DataPlaneConnection open(HostLookup lookup, String host, int port, Optional<TlsEndpoint> tls, UUID pool, Ticket session,
            Duration timeout, DeadlineTimer timer, CongestionControl congestionControl) throws IOException {
        long start = System.nanoTime();
        InetAddress address = lookup.resolve(host, timeout);
        Duration left = timeout.minusNanos(System.nanoTime() - start);
        if (left.toMillis() < 1) {
            throw new SocketTimeoutException("looking up node host " + host + " took its whole deadline of " + timeout.toMillis() + " ms");
        }
        SocketChannel socket = SocketChannel.open();
        DataPlaneConnection connection = null;
        try {
            socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
            TcpSockets.preferCongestionControl(socket, congestionControl);
            socket.socket().connect(new InetSocketAddress(address, port), (int) Math.min(Integer.MAX_VALUE, left.toMillis()));
            DataPlaneConnection opened = new DataPlaneConnection(socket, host + ":" + port, timer, timeout);
            connection = opened;
            opened.within(timeout, "handshake", () -> {
                opened.transport = tls.isPresent() ? TlsTransport.handshake(socket, tls.get()) : new PlainTransport(socket);
                opened.hello(pool, session);
            });
            return opened;
        } catch (IOException | RuntimeException e) {
            if (connection != null) {
                connection.close();
            }
            socket.close();
            throw e;
        }
    }

    /** One step of the protocol on this connection. */
    @FunctionalInterface
    private interface Step {
        void run() throws IOException;
    }

    /**
     * Runs {@code step}, closing the connection under it if it outlives {@code timeout}, or if no byte
     * moves for the stall window (the base deadline) in the meantime.
     */
    private void within(Duration timeout, String what, Step step) throws IOException {
        try (DeadlineTimer.Deadline deadline = timer.arm(socket, timeout, stall)) {
            current = deadline;
            try {
                step.run();
            } catch (IOException e) {
                if (deadline.expired()) {
                    SocketTimeoutException late = new SocketTimeoutException("node " + peer + " " + deadline.describe() + " during "
                            + what);
                    late.initCause(e);
                    throw late;
                }
                throw e;
            }
        }
    }

    private void hello(UUID pool, Ticket session) throws IOException {
        writeFully(FrameCodec.encodeHello(pool, session));
        ByteBuffer reply = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
        readFully(reply);
        HelloReply answer;
        try {
            answer = FrameCodec.decodeHelloReply(reply);
        } catch (FrameException e) {
            throw new StoreException(StoreException.Code.PROTOCOL, peer + ": " + e.getMessage());
        }
        Status status = answer.status();
        if (status == Status.AUTH) {
            throw new StoreException(StoreException.Code.UNAUTHENTICATED, "node " + peer + " refused "
                    + (session.isNone() ? "a caller without a ticket: the cluster is secure, give --credentials" : "the session ticket")
                    + " (its log says why)");
        }
        if (status == Status.BUSY) {
            throw new NodeBusy("node " + peer + " is at its limit of connections, every one at work");
        }
        if (status == Status.WRONG_POOL) {
            throw new StoreException(StoreException.Code.UNAVAILABLE, "node " + peer + " does not serve pool " + pool
                    + ", where the master placed this copy: the node that held it is gone from this address, or made its pool"
                    + " again");
        }
        if (status == Status.VERSION) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " refused this client's data-plane protocol, version "
                    + FrameCodec.VERSION + ", as an older node does: upgrade the cluster's nodes before its clients (a node takes the"
                    + " protocol of clients one version older too)");
        }
        if (status != Status.OK) {
            throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " refused the handshake: " + status
                    + " (client protocol version " + FrameCodec.VERSION + ")");
        }
        if (answer.switchToMac()) {
            if (!(transport instanceof TlsTransport tls)) {
                throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " asked to switch to MAC mode on a connection"
                        + " without TLS");
            }
            transport = MacTransport.switchFrom(tls);
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
        answered = false;
        this.request = FrameCodec.encode(request, this.request);
        writeFully(this.request);
        for (long done = 0; done < payload.byteSize(); done += WRITE_PIECE) {
            writeFully(payload.asSlice(done, Math.min(WRITE_PIECE, payload.byteSize() - done)).asByteBuffer());
            current.progressed();
        }
        if (payload.byteSize() > 0) {
            current.awaitingPeerWork();
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
                if (transport.read(buffer) < 0) {
                    throw new EOFException("node " + peer + " closed the connection with " + buffer.remaining()
                            + " bytes outstanding");
                }
                current.progressed();
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
            if (response.payloadLength() != 0) {
                // No node sends bytes after a refusal; left unread, they would be taken for the next answer on this connection.
                throw new StoreException(StoreException.Code.PROTOCOL, "node " + peer + " refused with " + response.status()
                        + " but announced " + response.payloadLength() + " payload bytes after it: " + text);
            }
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
            if (transport.read(dst) < 0) {
                throw new EOFException("node " + peer + " closed the connection with " + dst.remaining() + " bytes outstanding");
            }
            answered = true;
            current.progressed();
        }
    }

    /** Whether a byte of the node's answer to the last exchange arrived before it ended. */
    boolean answered() {
        return answered;
    }

    private void writeFully(ByteBuffer src) throws IOException {
        transport.write(src);
    }

    /**
     * Ends the connection under an exchange another thread runs on it, which then fails at once; that thread
     * closes the rest. Only the socket is closed here, as a TLS engine is not to be touched by two threads.
     */
    void abort() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closed all the same.
        }
    }

    @Override
    public void close() {
        if (transport != null) {
            transport.close();
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a socket we are done with; nothing useful to do about a failure.
        }
    }
}
