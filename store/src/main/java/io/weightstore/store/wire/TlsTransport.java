package io.weightstore.store.wire;

import io.weightstore.store.security.Credentials;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Mutual TLS 1.3 over a blocking socket, through the JDK's {@link SSLEngine}.
 *
 * <p>Reads decrypt straight into the caller's buffer whenever the next record fits in it (the engine
 * decrypts in place in the network buffer and copies the plaintext out once); only a record larger
 * than the room left goes through a scratch buffer, whose rest later reads hand out first. Socket
 * reads and writes move up to 256 KiB of records at a time, so a large
 * transfer costs one system call per many 16 KiB records.
 *
 * <p>After the handshake the engine may still receive handshake messages: a NewSessionTicket (taken
 * and ignored, as sessions are not resumed) and a KeyUpdate (answered with this end's own when the
 * peer asks; the JDK also starts one itself before a key has protected too many bytes). TLS 1.3 has
 * no renegotiation; anything else the engine wants is run or sent as it asks.
 *
 * <p>A TLS 1.3 client finishes its handshake before the server has checked the client's
 * certificate, so a refusal reaches the client only with the first read. Failures of that read are
 * explained as handshake failures ({@link Credentials#explain}), as are the handshake's own.
 *
 * <p>The peer's close_notify ends reads with -1; the socket ending without one is an
 * {@link EOFException}, as the stream may have been cut short by someone in between.
 */
public final class TlsTransport implements Transport {
    /** Ciphertext moved per socket read or write: many records per system call, still within L2 (64 KiB and 1 MiB measured slower). */
    private static final int NETWORK_BUFFER = 256 << 10;
    /** A ByteBuffer view spans at most 2 GiB; sendFile writes a mapped range in views of this size. */
    private static final long MAPPED_WRITE = 1L << 30;
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SocketChannel socket;
    private final SSLEngine engine;
    private final TlsEndpoint end;
    private final String address;
    private final ReentrantLock reading = new ReentrantLock();
    private final ReentrantLock writing = new ReentrantLock();
    /** Ciphertext read from the socket and not yet unwrapped, between position and limit. */
    private final ByteBuffer netIn;
    /** Records wrapped and not yet written (write mode; empty between calls). */
    private final ByteBuffer netOut;
    /** Plaintext of a record that did not fit the caller's buffer, between position and limit. */
    private final ByteBuffer overflow;
    private volatile String peer;
    private boolean established;
    /** Whether the peer has been heard from since the handshake; until then a failure may be it refusing us. */
    private boolean heardFromPeer;
    private boolean endOfStream;
    /** The socket failed or was closed under us: nothing more can be said on it. */
    private volatile boolean socketFailed;
    /** The socket now belongs to a {@link MacTransport}, which speaks on it without TLS. */
    private volatile boolean handedOver;

    private TlsTransport(SocketChannel socket, SSLEngine engine, TlsEndpoint end) {
        this.socket = socket;
        this.engine = engine;
        this.end = end;
        this.address = Peers.address(socket);
        this.peer = address;
        SSLSession session = engine.getSession();
        // On the heap: the JDK's AES-GCM and ChaCha20 intrinsics work on arrays, and reach direct buffers only through
        // small copies; that costs more than the socket's copy through its own direct buffer (measured: 0.1-0.2 ns of
        // CPU per byte on each side).
        this.netIn = ByteBuffer.allocate(Math.max(NETWORK_BUFFER, session.getPacketBufferSize())).flip();
        this.netOut = ByteBuffer.allocate(Math.max(NETWORK_BUFFER, session.getPacketBufferSize()));
        this.overflow = ByteBuffer.allocate(session.getApplicationBufferSize()).flip();
    }

    /**
     * Shakes hands on {@code socket} (connected, blocking) as {@code end}, and returns the secured
     * connection. A failure closes the socket and says why, naming certificates; cut a handshake
     * that takes too long by closing the socket, e.g. with a {@link DeadlineTimer}.
     */
    public static TlsTransport handshake(SocketChannel socket, TlsEndpoint end) throws IOException {
        if (!socket.isBlocking()) {
            throw new IllegalArgumentException("socket to " + Peers.address(socket) + " is non-blocking; a transport needs blocking I/O");
        }
        TlsTransport transport = new TlsTransport(socket, end.newEngine(), end);
        try {
            transport.shakeHands();
        } catch (ClosedChannelException e) {
            // Closed on this side, by a deadline say: the caller knows why better than the handshake does.
            transport.close();
            throw e;
        } catch (IOException e) {
            transport.close();
            throw transport.explained(e);
        } catch (RuntimeException e) {
            transport.close();
            throw e;
        }
        return transport;
    }

    private void shakeHands() throws IOException {
        reading.lock();
        writing.lock();
        try {
            engine.beginHandshake();
            HandshakeStatus status = engine.getHandshakeStatus();
            while (status != HandshakeStatus.FINISHED && status != HandshakeStatus.NOT_HANDSHAKING) {
                status = switch (status) {
                    case NEED_WRAP -> wrapHandshake();
                    case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> unwrapHandshake();
                    case NEED_TASK -> runTasks();
                    default -> throw new IllegalStateException("handshake status " + status);
                };
            }
            established = true;
            // The server has checked the client's certificate by now; a client has yet to hear the verdict.
            heardFromPeer = !engine.getUseClientMode();
            peer = describePeer();
        } finally {
            writing.unlock();
            reading.unlock();
        }
    }

    private String describePeer() {
        try {
            return address + " (" + Credentials.peerIdentity(engine.getSession()) + ")";
        } catch (SSLPeerUnverifiedException e) {
            return address + " (no certificate)";
        }
    }

    /** Sends what the engine has to say in the handshake (or after it: a KeyUpdate). Needs {@link #writing}. */
    private HandshakeStatus wrapHandshake() throws IOException {
        SSLEngineResult result = engine.wrap(NOTHING, netOut);
        flush();
        if (result.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
            throw tooSmall(netOut, result);
        }
        if (result.getStatus() == SSLEngineResult.Status.CLOSED) {
            throw new SSLException("the TLS engine closed while talking to " + peer + " (" + result + ")");
        }
        return result.getHandshakeStatus();
    }

    private HandshakeStatus unwrapHandshake() throws IOException {
        // Handshake records yield no data, but the peer may send data right behind its last one: it waits in overflow.
        overflow.compact();
        SSLEngineResult result;
        try {
            result = engine.unwrap(netIn, overflow);
        } finally {
            overflow.flip();
        }
        switch (result.getStatus()) {
            case BUFFER_UNDERFLOW -> fill();
            case BUFFER_OVERFLOW -> throw tooSmall(overflow, result);
            case CLOSED -> throw new SSLHandshakeException(address + " ended the TLS handshake (" + result + ")");
            case OK -> { }
        }
        return result.getHandshakeStatus();
    }

    private HandshakeStatus runTasks() {
        for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
            task.run();
        }
        return engine.getHandshakeStatus();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        reading.lock();
        try {
            return readRecords(dst);
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            throw heardFromPeer ? e : explained(e);
        } finally {
            reading.unlock();
        }
    }

    private int readRecords(ByteBuffer dst) throws IOException {
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (overflow.hasRemaining()) {
            return ByteBuffers.drain(overflow, dst);
        }
        if (endOfStream) {
            return -1;
        }
        int produced = 0;
        boolean spill = false;
        while (true) {
            SSLEngineResult result;
            if (spill) {
                overflow.clear();
                try {
                    result = engine.unwrap(netIn, overflow);
                } finally {
                    overflow.flip();
                }
            } else {
                result = engine.unwrap(netIn, dst);
            }
            heardFromPeer |= result.bytesConsumed() > 0;
            switch (result.getStatus()) {
                case OK -> {
                    settle(result.getHandshakeStatus());
                    if (!spill) {
                        produced += result.bytesProduced();
                    } else if (overflow.hasRemaining()) {
                        return ByteBuffers.drain(overflow, dst);
                    }
                    // Else that record was a handshake message (a session ticket, a key update); read on.
                    spill = false;
                }
                case BUFFER_OVERFLOW -> {
                    if (produced > 0) {
                        return produced;
                    }
                    if (spill) {
                        throw tooSmall(overflow, result);
                    }
                    spill = true;
                }
                case BUFFER_UNDERFLOW -> {
                    if (produced > 0) {
                        return produced;
                    }
                    fill();
                }
                case CLOSED -> {
                    endOfStream = true;
                    return produced > 0 ? produced : -1;
                }
            }
            if (produced > 0 && !dst.hasRemaining()) {
                return produced;
            }
        }
    }

    /**
     * Does what a message after the handshake asks: a task to run, or a KeyUpdate to answer. When a
     * writer holds the socket, the answer is left to it: the engine puts it before the writer's next
     * record, and TLS 1.3 lets it wait, where waiting for the writer here could deadlock two ends
     * that both write.
     */
    private void settle(HandshakeStatus status) throws IOException {
        while (true) {
            switch (status) {
                case NEED_TASK -> status = runTasks();
                case NEED_WRAP -> {
                    if (!writing.tryLock()) {
                        return;
                    }
                    try {
                        status = wrapHandshake();
                    } finally {
                        writing.unlock();
                    }
                }
                default -> {
                    return;
                }
            }
        }
    }

    /** Reads more ciphertext from the socket behind what netIn holds. */
    private void fill() throws IOException {
        netIn.compact();
        int n;
        try {
            n = socket.read(netIn);
        } catch (IOException e) {
            socketFailed = true;
            throw e;
        } finally {
            netIn.flip();
        }
        if (n < 0) {
            socketFailed = true;
            throw new EOFException(address + " closed the connection " + (established
                    ? "without a TLS close_notify: what arrived may have been cut short"
                    : "during the TLS handshake"));
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        writing.lock();
        try {
            int length = src.remaining();
            while (src.hasRemaining()) {
                SSLEngineResult result = engine.wrap(src, netOut);
                switch (result.getStatus()) {
                    case OK -> {
                        if (result.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                            runTasks();
                        }
                    }
                    case BUFFER_OVERFLOW -> {
                        if (netOut.position() == 0) {
                            throw tooSmall(netOut, result);
                        }
                        flush();
                    }
                    case CLOSED -> {
                        flush();
                        throw new SSLException("the TLS connection to " + peer + " is closed for writing");
                    }
                    case BUFFER_UNDERFLOW -> throw new IllegalStateException("wrap reported " + result);
                }
            }
            flush();
            return length;
        } finally {
            writing.unlock();
        }
    }

    /** Writes the wrapped records in netOut. Needs {@link #writing}. */
    private void flush() throws IOException {
        netOut.flip();
        try {
            while (netOut.hasRemaining()) {
                socket.write(netOut);
            }
        } catch (IOException e) {
            socketFailed = true;
            throw e;
        } finally {
            netOut.clear();
        }
    }

    /** Sends the mapped bytes as written data: TLS has to see every byte, so sendfile is no use here. */
    @Override
    public void sendFile(FileChannel file, long position, MemorySegment bytes) throws IOException {
        writing.lock();
        try {
            for (long done = 0; done < bytes.byteSize(); done += MAPPED_WRITE) {
                write(bytes.asSlice(done, Math.min(MAPPED_WRITE, bytes.byteSize() - done)).asByteBuffer());
            }
        } finally {
            writing.unlock();
        }
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public Optional<SSLSession> session() {
        return Optional.of(engine.getSession());
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen() && !handedOver;
    }

    /**
     * Sends close_notify when the socket takes it at once and no other thread is reading or writing
     * (or, after the engine failed, the alert saying why), then closes the socket. Never blocks, so a
     * deadline may call it while another thread is stuck in this transport: that thread's call fails.
     */
    @Override
    public void close() {
        if (handedOver) {
            return;
        }
        Peers.closeAfterGoodbye(reading, writing, () -> !socketFailed && socket.isOpen(), this::sayGoodbye, socket);
    }

    private void sayGoodbye() {
        try {
            engine.closeOutbound();
            netOut.clear();
            while (!engine.isOutboundDone() && engine.wrap(NOTHING, netOut).bytesProduced() > 0) {
                // An alert and a close_notify at most: a few dozen bytes.
            }
            netOut.flip();
            socket.configureBlocking(false);
            socket.write(netOut);
        } catch (IOException | RuntimeException ignored) {
            // A courtesy to the peer; the socket closes either way.
        }
    }

    /**
     * Gives up the socket to a {@link MacTransport} at a point both ends agreed on: returns the bytes
     * that arrived behind the last TLS record, which are the first of the new framing.
     */
    ByteBuffer handOver() throws SSLException {
        reading.lock();
        writing.lock();
        try {
            if (overflow.hasRemaining() || engine.getHandshakeStatus() != HandshakeStatus.NOT_HANDSHAKING) {
                throw new SSLException("cannot leave TLS with " + peer + ": " + overflow.remaining()
                        + " bytes of TLS data unread, handshake status " + engine.getHandshakeStatus());
            }
            handedOver = true;
            ByteBuffer rest = ByteBuffer.allocate(netIn.remaining());
            rest.put(netIn).flip();
            return rest;
        } finally {
            writing.unlock();
            reading.unlock();
        }
    }

    SocketChannel socket() {
        return socket;
    }

    boolean isClient() {
        return engine.getUseClientMode();
    }

    private SSLHandshakeException explained(IOException failure) {
        SSLHandshakeException explained = end.explain(failure);
        SSLHandshakeException named = new SSLHandshakeException(address + ": " + explained.getMessage());
        named.initCause(failure);
        return named;
    }

    /** The buffers are sized from the session's own limits, which do not change; the engine asking for more is a bug. */
    private IllegalStateException tooSmall(ByteBuffer buffer, SSLEngineResult result) {
        SSLSession session = engine.getSession();
        return new IllegalStateException("a " + buffer.capacity() + "-byte buffer is too small for the TLS engine (" + result
                + "; packet size " + session.getPacketBufferSize() + ", application size " + session.getApplicationBufferSize() + ")");
    }
}
