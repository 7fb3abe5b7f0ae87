package io.weightstore.store.wire;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import javax.crypto.SecretKey;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLProtocolException;
import javax.net.ssl.SSLSession;

/**
 * Authenticated, not encrypted: a mutual TLS 1.3 handshake proves who both ends are, then both
 * leave TLS on the same socket for chunks sent in clear, each with a tag. The sender keeps
 * sendfile (it tags a file range from a mapping of it, then sends the range from the page cache),
 * and the receiver reads straight into its buffer and checks the tag there while the bytes are
 * still in cache, where TLS would encrypt, copy and decrypt every byte. Measured on loopback
 * ({@code bench transport}), that buys less than it might: about 0.8 ns of CPU per byte for both
 * ends against 0.9-1.0 for TLS with AES-GCM and 0.4 for plain, because the JDK's AES-GCM is as fast
 * as its Poly1305 on a CPU with the Poly1305 intrinsic and the sender still reads every byte once
 * to tag it.
 *
 * <p>What an attacker on the network path can do in each mode:
 * <ul>
 *   <li>{@link PlainTransport}: read everything, and change, insert or drop anything unnoticed.</li>
 *   <li>{@link TlsTransport}: see only sizes and timing; any change fails the connection.</li>
 *   <li>This: read everything sent after the switch (the weights, which offsets a client asks for,
 *       error messages, and any token sent after it, so send secrets under TLS before switching);
 *       but not change, insert, drop, replay or reorder a byte, nor end the stream early, without
 *       the receiver's read failing: every chunk's tag covers its length and bytes, its unsent
 *       sequence number its place, and a tagged end frame the end. Keys are fresh per connection
 *       and per direction, so nothing carries over to another connection or from one direction to
 *       the other.</li>
 * </ul>
 * In every mode an attacker can cut the connection; TLS and this only make sure it is noticed.
 *
 * <p>After the switch, each direction carries frames {@code u32 word | tag[16] | payload}: the word
 * is the payload's length (1 to 256 KiB), or {@code 0x8000_0000} with no payload for the
 * sender's clean end of stream; the tag is {@link ChunkTags}' over word and payload, with the MAC
 * the node (the TLS server) finds fastest on its CPU and names in its switch message. Each
 * direction's key is exported from the TLS session (RFC 8446 section 7.5) under a label naming the
 * direction, so no key crosses the wire. A read returns a chunk's bytes only after its tag has
 * passed.
 *
 * <p>A file range is tagged from a mapping and sent from the file: it must not change until it is
 * sent (a change in between makes the receiver refuse the chunk, never accept other bytes).
 */
public final class MacTransport implements Transport {
    /** Payload bytes per frame: tags and headers cost nothing, and a chunk is checked while in cache (64 KiB and 1 MiB measured slower). */
    private static final int MAX_CHUNK = 256 << 10;
    /** The header word of the sender's clean end of stream. */
    private static final int END = 0x8000_0000;
    private static final int HEADER_BYTES = Integer.BYTES + ChunkTags.TAG_BYTES;
    /**
     * What each end sends under TLS to say the next byte is framing of this kind, version 2, followed by
     * the {@link ChunkTags.Algorithm} it would tag with; the server's is the one both use.
     */
    private static final ByteBuffer SWITCH = ByteBuffer.wrap("WS-MAC\0\2".getBytes(StandardCharsets.US_ASCII)).asReadOnlyBuffer();
    private static final String CLIENT_WRITES = "EXPERIMENTAL weightstore chunk tags client to server";
    private static final String SERVER_WRITES = "EXPERIMENTAL weightstore chunk tags server to client";
    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    private final SocketChannel socket;
    private final SSLSession session;
    private final String peer;
    private final ReentrantLock reading = new ReentrantLock();
    private final ReentrantLock writing = new ReentrantLock();
    private final ChunkTags sending;
    private final ChunkTags receiving;
    /** Bytes that arrived behind the peer's last TLS record: the first of its frames. */
    private final ByteBuffer carried;
    private final ByteBuffer inHeader = ByteBuffer.allocate(HEADER_BYTES);
    private final byte[] inTag = new byte[ChunkTags.TAG_BYTES];
    private final ByteBuffer outHeader = ByteBuffer.allocateDirect(HEADER_BYTES);
    /** A checked chunk that did not fit the caller's buffer, between position and limit. */
    private final ByteBuffer verified = ByteBuffer.allocateDirect(MAX_CHUNK).flip();
    private boolean endOfStream;
    private volatile boolean socketFailed;

    private MacTransport(SocketChannel socket, SSLSession session, String peer, ChunkTags sending, ChunkTags receiving,
            ByteBuffer carried) {
        this.socket = socket;
        this.session = session;
        this.peer = peer;
        this.sending = sending;
        this.receiving = receiving;
        this.carried = carried;
    }

    /**
     * Leaves TLS for authenticated framing on {@code tls}'s socket. Both ends must call it at the same
     * point of their conversation (right after the handshake, or after an exchange that should stay
     * secret, such as credentials), with nothing unread: each says so under TLS and waits to hear the
     * other, so anything either TLS stack had queued is behind them. On failure {@code tls} still owns
     * the socket; close it.
     */
    public static MacTransport switchFrom(TlsTransport tls) throws IOException {
        return switchFrom(tls, ChunkTags.Algorithm.fastestHere());
    }

    /** The MAC this JVM proposes, and uses when it is the node: Poly1305 or AES-GMAC, whichever is faster on its CPU. */
    public static String tagsProposedHere() {
        return ChunkTags.Algorithm.fastestHere().label;
    }

    /** The MAC this connection tags with, the node's choice. */
    String tagsInUse() {
        return sending.algorithm().label;
    }

    /** As {@link #switchFrom(TlsTransport)}, proposing {@code preferred}; a server proposes what both will use. */
    static MacTransport switchFrom(TlsTransport tls, ChunkTags.Algorithm preferred) throws IOException {
        ByteBuffer mine = ByteBuffer.allocate(SWITCH.capacity() + 1).put(SWITCH.duplicate()).put(preferred.id).flip();
        tls.writeFully(mine);
        ByteBuffer theirs = ByteBuffer.allocate(SWITCH.capacity() + 1);
        tls.readFully(theirs);
        if (!theirs.flip().slice(0, SWITCH.capacity()).equals(SWITCH)) {
            throw new SSLProtocolException(tls.peer() + " sent " + HexFormat.of().formatHex(theirs.array())
                    + " where its switch to authenticated framing was due; both ends must switch at the same point, and run"
                    + " the same version of weightstore");
        }
        byte chosen = tls.isClient() ? theirs.get(SWITCH.capacity()) : preferred.id;
        ChunkTags.Algorithm algorithm = ChunkTags.Algorithm.of(chosen).orElseThrow(() -> new SSLProtocolException(tls.peer()
                + " chose chunk tags of kind " + chosen + ", which this weightstore does not know"));
        SSLSession session = tls.session().orElseThrow();
        if (!(session instanceof ExtendedSSLSession extended)) {
            throw new SSLException("the TLS session with " + tls.peer() + " cannot export keys (" + session.getClass().getName() + ")");
        }
        ChunkTags sending;
        ChunkTags receiving;
        try {
            SecretKey clientWrites = extended.exportKeyingMaterialKey(algorithm.keyAlgorithm, CLIENT_WRITES, null, algorithm.keyBytes);
            SecretKey serverWrites = extended.exportKeyingMaterialKey(algorithm.keyAlgorithm, SERVER_WRITES, null, algorithm.keyBytes);
            sending = new ChunkTags(algorithm, tls.isClient() ? clientWrites : serverWrites);
            receiving = new ChunkTags(algorithm, tls.isClient() ? serverWrites : clientWrites);
        } catch (GeneralSecurityException e) {
            throw new SSLException("cannot derive chunk keys with " + tls.peer() + ": " + e.getMessage(), e);
        }
        return new MacTransport(tls.socket(), session, tls.peer(), sending, receiving, tls.handOver());
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        reading.lock();
        try {
            if (!dst.hasRemaining()) {
                return 0;
            }
            if (verified.hasRemaining()) {
                return ByteBuffers.drain(verified, dst);
            }
            if (endOfStream) {
                return -1;
            }
            inHeader.clear();
            readSocketFully(inHeader);
            int word = inHeader.getInt(0);
            inHeader.get(Integer.BYTES, inTag);
            if (word == END) {
                check(word, NOTHING);
                endOfStream = true;
                return -1;
            }
            if (word <= 0 || word > MAX_CHUNK) {
                socketFailed = true;
                throw new SSLProtocolException(peer + " sent a frame announcing " + word + " bytes, outside 1.." + MAX_CHUNK
                        + ": the framing was altered in transit, or the peer does not speak it");
            }
            // A chunk that fits lands where the caller wants it and is checked there; only a larger one is copied.
            boolean inPlace = dst.remaining() >= word;
            ByteBuffer payload = inPlace ? dst.slice(dst.position(), word) : verified.clear().limit(word);
            readSocketFully(payload);
            check(word, payload.flip());
            if (inPlace) {
                dst.position(dst.position() + word);
                return word;
            }
            return ByteBuffers.drain(verified, dst);
        } finally {
            reading.unlock();
        }
    }

    private void check(int word, ByteBuffer payload) throws IOException {
        long chunk = receiving.sequence();
        try {
            receiving.verify(word, payload, inTag);
        } catch (GeneralSecurityException e) {
            // Nothing after a forged chunk can be trusted to be in step: the connection is over.
            socketFailed = true;
            verified.clear().flip();
            Peers.closeQuietly(socket);
            throw new SSLException("chunk " + chunk + " (" + (word == END ? "end of stream" : word + " bytes") + ") from " + peer
                    + " failed its authentication tag: it was altered, replayed or reordered in transit", e);
        }
    }

    private void readSocketFully(ByteBuffer into) throws IOException {
        while (into.hasRemaining()) {
            if (carried.hasRemaining()) {
                ByteBuffers.drain(carried, into);
                continue;
            }
            int n;
            try {
                n = socket.read(into);
            } catch (IOException e) {
                socketFailed = true;
                throw e;
            }
            if (n < 0) {
                socketFailed = true;
                throw new EOFException(peer + " closed the connection without ending the stream: what arrived may have"
                        + " been cut short");
            }
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        writing.lock();
        try {
            int length = src.remaining();
            while (src.hasRemaining()) {
                int n = Math.min(MAX_CHUNK, src.remaining());
                ByteBuffer payload = src.slice(src.position(), n);
                seal(n, payload);
                writeAll(outHeader, payload);
                src.position(src.position() + n);
            }
            return length;
        } finally {
            writing.unlock();
        }
    }

    /** Tags each chunk from the mapping, then sends it from the file with sendfile: no copy passes through this process. */
    @Override
    public void sendFile(FileChannel file, long position, MemorySegment bytes) throws IOException {
        writing.lock();
        try {
            for (long done = 0; done < bytes.byteSize(); ) {
                int n = (int) Math.min(MAX_CHUNK, bytes.byteSize() - done);
                seal(n, bytes.asSlice(done, n).asByteBuffer());
                writeAll(outHeader);
                transfer(file, position + done, n);
                done += n;
            }
        } finally {
            writing.unlock();
        }
    }

    /** Fills {@link #outHeader} for the next chunk. */
    private void seal(int word, ByteBuffer payload) throws SSLException {
        outHeader.clear().putInt(word);
        try {
            sending.sign(word, payload, outHeader);
        } catch (GeneralSecurityException e) {
            throw new SSLException("cannot tag chunk " + sending.sequence() + " for " + peer + ": " + e.getMessage(), e);
        }
        outHeader.flip();
    }

    private void writeAll(ByteBuffer... buffers) throws IOException {
        try {
            long left = 0;
            for (ByteBuffer b : buffers) {
                left += b.remaining();
            }
            while (left > 0) {
                left -= socket.write(buffers);
            }
        } catch (IOException e) {
            socketFailed = true;
            throw e;
        }
    }

    private void transfer(FileChannel file, long position, long count) throws IOException {
        try {
            for (long end = position + count; position < end; ) {
                long sent = file.transferTo(position, end - position, socket);
                if (sent <= 0) {
                    throw new IOException("sendfile to " + peer + " made no progress at file offset " + position);
                }
                position += sent;
            }
        } catch (IOException e) {
            socketFailed = true;
            throw e;
        }
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public Optional<SSLSession> session() {
        return Optional.of(session);
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /**
     * Sends the tagged end frame when the socket takes it at once and no other thread is reading or
     * writing, then closes the socket. Never blocks, so a deadline may call it while another thread is
     * stuck in this transport: that thread's call fails.
     */
    @Override
    public void close() {
        Peers.closeAfterGoodbye(reading, writing, () -> !socketFailed && socket.isOpen(), this::sayGoodbye, socket);
    }

    private void sayGoodbye() {
        try {
            seal(END, NOTHING);
            socket.configureBlocking(false);
            socket.write(outHeader);
        } catch (IOException ignored) {
            // A courtesy to the peer; the socket closes either way.
        }
    }
}
