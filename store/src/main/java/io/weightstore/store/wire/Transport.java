package io.weightstore.store.wire;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.FileChannel;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * One connected data-plane socket, as both ends use it: blocking reads and writes, and sending a
 * range of a file. Three kinds, chosen per connection:
 *
 * <ul>
 *   <li>{@link PlainTransport}: bytes as they are, sendfile on the sending side. Anyone on the
 *       network can read and change them.</li>
 *   <li>{@link TlsTransport}: mutual TLS 1.3; every byte encrypted and authenticated.</li>
 *   <li>{@link MacTransport}: a mutual TLS 1.3 handshake, then every chunk authenticated but sent
 *       in clear, so the sender keeps sendfile. See its comment for what an attacker can and cannot
 *       do in each mode.</li>
 * </ul>
 *
 * <p>Blocking: a read or write blocks its thread in the socket. To cut a stalled operation, close
 * the transport (or the socket under it) from another thread, as {@link DeadlineTimer} does: the
 * blocked call fails with an {@link IOException} and the transport is left safe to close again.
 * Send files from platform threads: under a virtual thread the JDK makes the socket non-blocking,
 * and sendfile then stops at a full socket buffer instead of waiting.
 *
 * <p>Threads: one thread reading and one thread writing at a time (the data plane uses one thread
 * for both, request then response). {@link #close()} is safe from any thread at any time; it never
 * blocks.
 */
public sealed interface Transport extends ByteChannel permits PlainTransport, TlsTransport, MacTransport {
    /**
     * Reads what has arrived into {@code dst}, blocking until at least one byte has: returns how
     * many (possibly fewer than {@code dst} has room for, so a caller can look at each piece as it
     * lands), 0 only when {@code dst} has no room, and -1 once the peer ended the stream cleanly.
     * Bytes of {@code dst} beyond those counted are undefined.
     */
    @Override
    int read(ByteBuffer dst) throws IOException;

    /** Writes all of {@code src}, blocking until the socket took it, and returns how many bytes that was. */
    @Override
    int write(ByteBuffer src) throws IOException;

    /**
     * Sends {@code count} bytes of {@code file} from {@code position}, exactly as if they had been
     * written; the range must not change while it is sent. A transport that has to read the bytes
     * (to encrypt or tag them) maps the range for the call, which costs about 0.1 ns of CPU per byte
     * in page faults and unmapping: a caller that keeps the file mapped, as a node keeps its pool,
     * spares that with {@link #sendFile(FileChannel, long, MemorySegment)}.
     */
    default void sendFile(FileChannel file, long position, long count) throws IOException {
        if (count == 0) {
            return;
        }
        try (Arena mapping = Arena.ofConfined()) {
            sendFile(file, position, FileRanges.map(file, position, count, mapping, peer()));
        }
    }

    /**
     * Sends {@code bytes}, which must be {@code file}'s bytes from {@code position} as the caller
     * has them mapped: plain sends them from the file with sendfile, TLS encrypts them from the
     * mapping, MAC tags them from the mapping and sends them from the file with sendfile.
     */
    void sendFile(FileChannel file, long position, MemorySegment bytes) throws IOException;

    /** Who is at the other end, for messages: the address, and the identity it proved if any. */
    String peer();

    /** The TLS session of the handshake, which says who the peer proved to be; empty for plain connections. */
    Optional<SSLSession> session();

    /**
     * Ends the connection without blocking: a TLS end sends its close_notify if the socket takes it
     * at once and no other thread is in a read or write, then the socket is closed.
     */
    @Override
    void close();

    /** Reads until {@code dst} is full; the stream ending first is an {@link EOFException}. */
    default void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (read(dst) < 0) {
                throw new EOFException(peer() + " ended the stream with " + dst.remaining() + " bytes outstanding");
            }
        }
    }

    /** Writes all of {@code src}. */
    default void writeFully(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            write(src);
        }
    }
}
