package io.weightstore.store.node;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.logging.RateLimitedLog;
import io.weightstore.store.metrics.NodeMetrics;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.HelloReply;
import io.weightstore.store.wire.MacTransport;
import io.weightstore.store.wire.Peers;
import io.weightstore.store.wire.PlainTransport;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Response;
import io.weightstore.store.wire.Status;
import io.weightstore.store.wire.TlsTransport;
import io.weightstore.store.wire.Transport;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one data-plane connection: handshake, then requests until the peer closes or breaks the
 * protocol. Frames are decoded by {@link FrameCodec}; this class checks that what they ask for lies
 * inside the pool, verifies checksum blocks, and moves the bytes. A broken frame only ends this
 * connection. Every wait has a deadline: the handshake, the next request of an idle connection,
 * and each transfer (scaled by its bytes), so a peer that stops reading or writing frees its
 * thread instead of holding it forever.
 */
final class RequestHandler implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(RequestHandler.class);
    /**
     * A connection's buffer for gathered rows and for written pieces (which it fits): kept while the connection
     * lives, so its size times the connection limit is the node's direct memory for it. Sending gathered rows
     * every 1 MiB rather than 4 measured the same. Half of {@link PoolFile#WRITE_PIECE}: a node's pool on a disk
     * file system is written in 1 MiB folios, not mapped by 2 MiB entries as an embedded store's is; a node's
     * pool is meant to be a tmpfs in huge pages, written through its mapping.
     */
    private static final int STAGING_BYTES = 1 << 20;
    /** Rows gathered between two signs of progress: gathering from a pool on a disk may fault page by page. */
    private static final int ROWS_PER_PROGRESS = 64;
    private static final int CHUNK = 1 << 30;
    /** Files go out in pieces this size, each a sign of progress for the stall deadline. */
    private static final long SEND_PIECE = 1 << 20;

    /** One wait on the socket, done under a deadline. */
    @FunctionalInterface
    private interface Step<T> {
        T run() throws IOException, FrameException;
    }

    private final SocketChannel socket;
    private final PoolFile pool;
    private final boolean writesThroughMapping;
    private final VerifiedBlocks verified;
    private final DataPlaneSecurity security;
    private final TransferDeadlines deadlines;
    private final DeadlineTimer timer;
    private final RateLimitedLog refusals;
    private final NodeMetrics metrics;
    private final NodeCounters counters;
    private final IdleConnections idle;
    private final WritesInProgress writes;
    private final ByteBuffer header = ByteBuffer.allocate(FrameCodec.REQUEST_HEADER_BYTES);
    private final ByteBuffer responseBuffer = ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES + FrameCodec.MAX_MESSAGE);
    private ByteBuffer body = ByteBuffer.allocate(256);
    private ByteBuffer staging;
    private Admission.Session session;
    private Transport transport;
    private DeadlineTimer.Deadline current;

    /** {@code writesThroughMapping}: the pool's {@link PoolFile#writesThroughMapping}; else writes go by {@code pwrite}. */
    RequestHandler(SocketChannel socket, PoolFile pool, boolean writesThroughMapping, VerifiedBlocks verified, DataPlaneSecurity security,
            TransferDeadlines deadlines, DeadlineTimer timer, RateLimitedLog refusals, NodeCounters counters, NodeMetrics metrics,
            IdleConnections idle, WritesInProgress writes) {
        this.socket = socket;
        this.pool = pool;
        this.writesThroughMapping = writesThroughMapping;
        this.verified = verified;
        this.security = security;
        this.deadlines = deadlines;
        this.timer = timer;
        this.refusals = refusals;
        this.metrics = metrics;
        this.counters = counters;
        this.idle = idle;
        this.writes = writes;
    }

    @Override
    public void run() {
        try (socket) {
            try {
                transport = within(deadlines.base(), "TLS handshake", () -> security.accept(socket));
            } catch (FrameException e) {
                throw new IllegalStateException("a handshake reads no frames", e);
            } catch (IOException e) {
                refusals.warn("data-plane handshake from {} failed: {}", peer(), e.getMessage());
                return;
            }
            serveConnection();
        } catch (EOFException e) {
            log.debug("data-plane peer {} closed mid-frame", peer());
        } catch (IOException e) {
            log.debug("data-plane connection from {} ended: {}", peer(), e.getMessage());
        } catch (RuntimeException e) {
            log.error("data-plane connection from {} failed", peer(), e);
        } finally {
            if (transport != null) {
                transport.close();
            }
        }
    }

    private void serveConnection() throws IOException {
        boolean accepted;
        try {
            accepted = within(deadlines.base(), "handshake", this::handshake);
        } catch (FrameException e) {
            throw new IllegalStateException("the handshake answers bad frames itself", e);
        }
        if (accepted) {
            while (true) {
                Request request;
                try {
                    boolean offered = session.makesWayWhenIdle();
                    if (offered) {
                        idle.idle(socket);
                    }
                    try {
                        // Between requests a connection may wait for the idle timeout; once one starts, it is an exchange
                        // like any other, and a peer that stops halfway is cut at the stall window.
                        boolean arrived = within(deadlines.idle(), deadlines.idle(), "next request", this::requestStarts);
                        request = arrived ? within(deadlines.base(), "request", this::restOfRequest) : null;
                    } catch (IOException | FrameException | RuntimeException e) {
                        boolean ours = !offered || idle.claim(socket);
                        if (e instanceof FrameException && !ours) {
                            return;
                        }
                        throw e;
                    }
                    // Taken to make room for another connection while the request arrived: its client sees the connection
                    // closed before any byte of an answer, and asks again on a new one.
                    boolean ours = !offered || idle.claim(socket);
                    if (request == null || !ours) {
                        return;
                    }
                    boolean write = request instanceof Request.Write;
                    if (write) {
                        writes.started(socket);
                    }
                    try {
                        serveAuthorized(request, session.authorize(request));
                    } finally {
                        if (write) {
                            writes.ended(socket);
                        }
                    }
                } catch (FrameException refused) {
                    if (refused.status() == Status.AUTH) {
                        refusals.warn("refused a request from {}: {}", peer(), refused.getMessage());
                    }
                    refuse(Response.refused(refused.status(), refused.getMessage()));
                    if (refused.closeConnection()) {
                        log.debug("closing data-plane connection from {}: {}", peer(), refused.getMessage());
                        return;
                    }
                }
            }
        }
    }

    /**
     * Serves {@code request} under a deadline for its bytes, which for a write ends at its grant's expiry ({@code landsUntil}):
     * a writer that sends slowly enough would otherwise land bytes in room the master has since given to another put.
     */
    private void serveAuthorized(Request request, Optional<Instant> landsUntil) throws IOException, FrameException {
        long bytes = switch (request) {
            case Request.Write w -> w.range().length();
            // Checks alone send nothing, yet read every byte they check, from a disk when the pool is on one.
            case Request.Read r when r.range().length() == 0 -> r.checks().stream().mapToLong(BlockCheck::length).sum();
            default -> request.payloadLength();
        };
        Duration deadline = deadlines.forBytes(bytes);
        if (landsUntil.isPresent()) {
            Duration left = Duration.between(Instant.now(), landsUntil.get());
            deadline = left.compareTo(deadline) < 0 ? left : deadline;
        }
        long started = System.nanoTime();
        within(deadline, request.op() + " of " + bytes + " bytes" + (landsUntil.isPresent() ? ", under a grant that expires at "
                + landsUntil.get() : ""), () -> serve(request));
        metrics.served(request.op(), bytes, System.nanoTime() - started);
    }

    /** Runs {@code step}, closing the connection under it if it outlives {@code timeout}. */
    private <T> T within(Duration timeout, String what, Step<T> step) throws IOException, FrameException {
        return within(timeout, deadlines.stall(), what, step);
    }

    /** As {@link #within(Duration, String, Step)}, also closing it once no byte moved for {@code stall}. */
    private <T> T within(Duration timeout, Duration stall, String what, Step<T> step) throws IOException, FrameException {
        try (DeadlineTimer.Deadline deadline = timer.arm(socket, timeout, stall)) {
            current = deadline;
            try {
                return step.run();
            } catch (IOException e) {
                if (deadline.expired()) {
                    throw new SocketTimeoutException("peer " + peer() + " " + deadline.describe() + " during " + what);
                }
                throw e;
            }
        }
    }

    /** False, and nothing answered, when the node took the connection to make room before its hello was whole. */
    private boolean handshake() throws IOException {
        ByteBuffer hello = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
        readFully(hello);
        FrameCodec.Hello presented = null;
        FrameException malformed = null;
        try {
            FrameCodec.HelloHeader header = FrameCodec.decodeHelloHeader(hello);
            ByteBuffer rest = ByteBuffer.allocate(header.restLength());
            readFully(rest);
            presented = FrameCodec.decodeHelloRest(header, rest.flip());
        } catch (FrameException e) {
            malformed = e;
        }
        // Claimed only once the whole hello, ticket and all, is in: a peer that stops inside it makes way as one that never
        // sent a byte does.
        if (!idle.claim(socket)) {
            return false;
        }
        Status status = Status.OK;
        try {
            if (malformed != null) {
                throw malformed;
            }
            session = security.admission().admit(presented.session().bytes(), DataPlaneSecurity.certifiedPeer(transport));
            if (presented.pool().isPresent() && !presented.pool().get().equals(pool.uuid())) {
                throw new FrameException(Status.WRONG_POOL, true, "it asked for pool " + presented.pool().get() + "; this node serves "
                        + pool.uuid() + " (the master's record of where the caller's data lies is older than this node)");
            }
        } catch (FrameException e) {
            status = e.status();
            refusals.warn("refused data-plane handshake from {}: {}: {}", peer(), status, e.getMessage());
        }
        boolean mac = status == Status.OK && security.mac();
        writeFully(FrameCodec.encodeHelloReply(new HelloReply(status, mac)));
        if (mac) {
            transport = MacTransport.switchFrom((TlsTransport) transport);
        }
        return status == Status.OK;
    }

    /** Waits for the first bytes of the next request; false when the peer closed the connection between requests. */
    private boolean requestStarts() throws IOException {
        header.clear();
        return transport.read(header) >= 0;
    }

    /** The request whose first bytes {@link #requestStarts} read. */
    private Request restOfRequest() throws IOException, FrameException {
        readFully(header);
        FrameCodec.RequestHeader requestHeader = FrameCodec.decodeRequestHeader(header);
        if (body.capacity() < requestHeader.bodyLength()) {
            body = ByteBuffer.allocate(requestHeader.bodyLength());
        }
        body.clear().limit(requestHeader.bodyLength());
        readFully(body);
        body.flip();
        return FrameCodec.decodeRequest(requestHeader, body);
    }

    private Void serve(Request request) throws IOException, FrameException {
        switch (request) {
            case Request.Read r -> sendRanges(List.of(r.range()), r.checks());
            case Request.ReadRanges r -> sendRanges(r.ranges(), r.checks());
            case Request.ReadStrided r -> sendStrided(r.stride(), r.checks());
            case Request.Write w -> receive(w.range());
        }
        return null;
    }

    private void sendRanges(List<Range> ranges, List<BlockCheck> checks) throws IOException, FrameException {
        long total = 0;
        for (Range range : ranges) {
            requireInPool(range.offset(), range.length(), false);
            total += range.length();
        }
        // A read of nothing is a replica check (ObjectReader.checkReplicas): it hashes every block, whatever was checked before.
        verify(checks, total > 0);
        if (!(transport instanceof PlainTransport)) {
            // TLS and MAC read the bytes through the mapping; sendfile reads a hole as zeros, with no page of its own.
            for (Range range : ranges) {
                faultIn(range.offset(), range.length());
            }
        }
        respond(Response.ok(total));
        for (Range range : ranges) {
            sendFile(range);
        }
        counters.served(total);
    }

    private void sendStrided(Stride stride, List<BlockCheck> checks) throws IOException, FrameException {
        requireInPool(stride.offset(), stride.span(), false);
        verify(checks, true);
        if (stride.bytes() == 0) {
            // Rows of no bytes, as many as a frame may name: nothing to gather, and no loop over them to spin a core.
            respond(Response.ok(0));
            return;
        }
        // The gather reads through the mapping, unchecked rows too: a hole in a row fails the frame before its answer.
        faultInRows(stride);
        // Rows are often small: gather them into a staging buffer instead of a syscall per row. Allocated before the
        // answer starts, so that a node short of direct memory closes the connection before any byte of it.
        ByteBuffer out = staging();
        respond(Response.ok(stride.bytes()));
        MemorySegment data = pool.data();
        MemorySegment stage = MemorySegment.ofBuffer(out);
        for (int row = 0; row < stride.count(); row++) {
            if (row % ROWS_PER_PROGRESS == 0) {
                current.progressed();
            }
            long rowStart = stride.rowOffset(row);
            for (long copied = 0; copied < stride.blockLength(); ) {
                int n = (int) Math.min(stride.blockLength() - copied, out.remaining());
                MemorySegment.copy(data, rowStart + copied, stage, out.position(), n);
                out.position(out.position() + n);
                copied += n;
                if (!out.hasRemaining()) {
                    writeFully(out.flip());
                    out.clear();
                }
            }
        }
        writeFully(out.flip());
        counters.served(stride.bytes());
    }

    private void receive(Range range) throws IOException, FrameException {
        // The payload that follows cannot be skipped safely: a refused write ends the connection.
        requireInPool(range.offset(), range.length(), true);
        // Closed once the bytes landed (or stopped landing): a read may have checked the range while they did.
        try (VerifiedBlocks.Writing writing = verified.writing(range.offset(), range.length())) {
            if (writesThroughMapping) {
                MemorySegment target = pool.data().asSlice(range.offset(), range.length());
                for (long done = 0; done < range.length(); done += CHUNK) {
                    readFully(target.asSlice(done, Math.min(CHUNK, range.length() - done)).asByteBuffer());
                }
            } else {
                // A piece at a time through the staging buffer, which it fits, while it is in cache.
                ByteBuffer piece = staging();
                for (long done = 0; done < range.length(); done += STAGING_BYTES) {
                    readFully(piece.clear().limit((int) Math.min(STAGING_BYTES, range.length() - done)));
                    pool.writeInTurn(pool.channel(), range.offset() + done, MemorySegment.ofBuffer(piece.flip()));
                }
            }
        }
        respond(Response.ok(0));
    }

    /**
     * Hashes each block the request lists and refuses the request with CORRUPT if one does not match;
     * with {@code trustRecent}, a block found intact recently and not written since is taken as it
     * was found (see {@link VerifiedBlocks}): the ranks of a tensor-parallel load each read part of
     * the same blocks, and hashing each whole block for each of them cost more than sending the bytes.
     * No block hashed counts as progress: the stall window is what ends a frame that asks for more hashing
     * than its deadline allows, and a client sends few enough checks a frame to be answered well within it.
     */
    private void verify(List<BlockCheck> checks, boolean trustRecent) throws IOException, FrameException {
        for (BlockCheck check : checks) {
            // A frame may ask for far more hashing than its deadline allows (the same large block thousands of
            // times): once the deadline closed the connection, the rest would keep this thread for nobody.
            if (current.expired()) {
                throw new SocketTimeoutException("the deadline ended a frame of checks from " + peer() + " before its end");
            }
            requireInPool(check.offset(), check.length(), false);
            if (trustRecent && verified.trusts(check)) {
                continue;
            }
            long writesBefore = verified.writesStarted();
            faultIn(check.offset(), check.length());
            int actual = Checksums.crc32c(pool.data().asSlice(check.offset(), check.length()));
            if (actual != check.crc32c()) {
                metrics.readerChecksumMismatch();
                // The CRC expected comes with the request: a rotten copy, or a reader with wrong (or forged) metadata. The
                // node's scrubber checks its copies against the master's own CRCs; any reader may send this, so it is rate-limited.
                refusals.warn("checksum mismatch in pool {} at offset {} length {}: {} expected {}, the block's is {} (a rotten copy,"
                        + " or a reader with other metadata)", pool.path(), check.offset(), check.length(), peer(),
                        Integer.toHexString(check.crc32c()), Integer.toHexString(actual));
                throw new FrameException(Status.CORRUPT, false, "checksum mismatch on node " + pool.nodeId() + " at pool offset "
                        + check.offset() + " (block of " + check.length() + " bytes)");
            }
            verified.remember(check, writesBefore);
        }
    }

    /**
     * Faults in the rows of {@code stride}, runs of rows whose gaps are under a huge page at a time, and not the
     * gaps between runs: a frame of two one-byte rows at either end of the pool would otherwise fault in the whole
     * pool, a walk of all its pages that no deadline can interrupt.
     */
    private void faultInRows(Stride stride) throws FrameException {
        long runStart = stride.rowOffset(0);
        long runEnd = runStart + stride.blockLength();
        for (int row = 1; row < stride.count(); row++) {
            long rowStart = stride.rowOffset(row);
            if (rowStart - runEnd >= PoolFile.HUGE_PAGE) {
                faultIn(runStart, runEnd - runStart);
                runStart = rowStart;
            }
            runEnd = rowStart + stride.blockLength();
        }
        faultIn(runStart, runEnd - runStart);
    }

    /**
     * The range's pages, before they are read through the mapping (hashed, gathered, encrypted): one the pool cannot give
     * fails the frame, not the node.
     */
    private void faultIn(long offset, long length) throws FrameException {
        try {
            pool.faultIn(offset, length);
        } catch (StoreException e) {
            refusals.warn("cannot read pool memory for {}: {}", peer(), e.getMessage());
            throw new FrameException(e.code() == StoreException.Code.CORRUPT ? Status.CORRUPT : Status.INTERNAL, false, "node "
                    + pool.nodeId() + " cannot read pool offset " + offset + " length " + length + ": " + e.getMessage());
        }
    }

    private void requireInPool(long offset, long length, boolean closeConnection) throws FrameException {
        if (offset > pool.capacity() || length > pool.capacity() - offset) {
            throw new FrameException(Status.OUT_OF_RANGE, closeConnection, "range offset=" + offset + " length=" + length
                    + " is outside the pool of " + pool.capacity() + " bytes");
        }
    }

    /**
     * Answers a refused request under a deadline of its own, as every other wait has one: a peer that sends requests it
     * knows are refused and reads none of the answers fills the socket, and the write would hold this thread for good.
     */
    private void refuse(Response response) throws IOException {
        try {
            within(deadlines.base(), "refusal", () -> {
                respond(response);
                return null;
            });
        } catch (FrameException e) {
            throw new IllegalStateException("a refusal reads no frames", e);
        }
    }

    private void respond(Response response) throws IOException {
        writeFully(FrameCodec.encode(response, responseBuffer));
    }

    /** From the pool as mapped: TLS and MAC read the bytes there, plain sends them from the file. */
    private void sendFile(Range range) throws IOException {
        for (long done = 0; done < range.length(); done += SEND_PIECE) {
            long piece = Math.min(SEND_PIECE, range.length() - done);
            transport.sendFile(pool.channel(), PoolFile.DATA_START + range.offset() + done, pool.data().asSlice(range.offset() + done,
                    piece));
            current.progressed();
        }
    }

    private ByteBuffer staging() {
        if (staging == null) {
            staging = ByteBuffer.allocateDirect(STAGING_BYTES);
        }
        return staging.clear();
    }

    private void readFully(ByteBuffer dst) throws IOException {
        while (dst.hasRemaining()) {
            if (transport.read(dst) < 0) {
                throw new EOFException("peer closed with " + dst.remaining() + " bytes of a frame missing");
            }
            current.progressed();
        }
    }

    private void writeFully(ByteBuffer src) throws IOException {
        transport.write(src);
        current.progressed();
    }

    private String peer() {
        return transport != null ? transport.peer() : Peers.address(socket);
    }
}
