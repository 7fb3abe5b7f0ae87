package io.weightstore.store.client.access;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.TlsEndpoint;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;
import java.util.zip.Checksum;

/**
 * A node reached over its data-plane port, through a pool of idle connections.
 *
 * <p>Reads ask for exactly the wanted bytes, received straight into the caller's memory. A checksum
 * block wholly inside a wanted range is checked here as it arrives ({@link ArrivalCheck}), so the
 * check covers the network as well as the node's memory; a block only partly wanted (at the edge
 * of a range, or under a strided read) is checked by the node before it sends anything, so no
 * extra bytes cross the network to be checked.
 */
public final class SocketNodeAccess implements NodeAccess {
    /** One exchange on a borrowed connection. */
    @FunctionalInterface
    private interface Exchange {
        void run(DataPlaneConnection connection) throws IOException;
    }

    /**
     * Bytes one check frame asks a node to hash: about 10 ms of CRC32C over memory here, and within the
     * stall window from a pool on a disk that reads 13 MB/s (a cold one after a node's reboot): the node
     * answers nothing until it has read them all, and a check that times out counts its copy missing.
     */
    static final long VERIFY_BATCH_BYTES = 64L << 20;

    private final String host;
    private final int port;
    private final UUID pool;
    private final Optional<TlsEndpoint> tls;
    private final Supplier<Ticket> session;
    private final TransferDeadlines deadlines;
    private final DeadlineTimer timer;
    private final CongestionControl congestionControl;
    private final ConcurrentLinkedDeque<DataPlaneConnection> idle = new ConcurrentLinkedDeque<>();
    /** Connections in an exchange now: a close ends them too, as their deadlines may stop with the client's timer. */
    private final Set<DataPlaneConnection> inUse = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * Every exchange gets {@code deadlines.forBytes} its size, enforced by {@code timer}; a new
     * connection speaks TLS as {@code tls} when present, asks for the node's {@code pool} and
     * presents the ticket {@code session} gives at that moment, and sends under {@code congestionControl}.
     */
    public SocketNodeAccess(String host, int port, UUID pool, Optional<TlsEndpoint> tls, Supplier<Ticket> session,
            TransferDeadlines deadlines, DeadlineTimer timer, CongestionControl congestionControl) {
        this.congestionControl = congestionControl;
        this.host = host;
        this.port = port;
        this.pool = pool;
        this.tls = tls;
        this.session = session;
        this.deadlines = deadlines;
        this.timer = timer;
    }

    /**
     * Runs {@code exchange} on an idle connection, or a new one. A node closes connections that sit
     * idle past its idle timeout, or all of them as it restarts, and the client learns of it only when
     * it next uses one: an idle connection that fails before any byte of an answer, short of a
     * deadline, is taken as closed under it, and the exchange runs again once, on a new connection;
     * so does one whose request the node refused for its caller's credentials, which may have expired.
     * That is safe for every request here: reads and checks change nothing, and a write puts the
     * same bytes at the same place again.
     */
    private void withConnection(Exchange exchange) throws IOException {
        withConnection(OnBusy.WAIT, exchange);
    }

    private void withConnection(OnBusy onBusy, Exchange exchange) throws IOException {
        if (closed) {
            throw closedAccess("is closed", null);
        }
        DataPlaneConnection pooled = idle.pollFirst();
        if (pooled == null) {
            runOn(newConnection(onBusy), exchange);
            return;
        }
        try {
            runOn(pooled, exchange);
        } catch (IOException e) {
            // A node refuses a connection's request once the ticket it opened with has expired; a new connection presents
            // the newest ticket the master gave.
            boolean ticketRefused = e instanceof StoreException refused && refused.code() == StoreException.Code.UNAUTHENTICATED;
            if (!ticketRefused && (e instanceof StoreException || e instanceof SocketTimeoutException || pooled.answered())
                    || Thread.currentThread().isInterrupted()) {
                throw e;
            }
            // The pool is last in, first out: the connections behind this one sat idle longer still.
            closeIdle();
            runOn(newConnection(onBusy), exchange);
        }
    }

    /**
     * A new connection. A node at its limit with no connection idle long enough answers BUSY: under many engines
     * loading at once that passes as soon as a transfer ends, so unless {@code onBusy} says to fail at once, the
     * handshake is tried again after {@link BusyPauses}, for up to the base deadline, before the node counts as
     * unavailable.
     */
    private DataPlaneConnection newConnection(OnBusy onBusy) throws IOException {
        BusyPauses pauses = new BusyPauses(deadlines.base());
        while (true) {
            try {
                return DataPlaneConnection.open(host, port, tls, pool, session.get(), deadlines.base(), timer, congestionControl);
            } catch (NodeBusy busy) {
                if (onBusy == OnBusy.FAIL_AT_ONCE) {
                    throw busy;
                }
                if (closed || !pauses.pause("a connection to " + host + ":" + port)) {
                    throw new StoreException(StoreException.Code.UNAVAILABLE, busy.getMessage() + " for " + deadlines.base().toMillis()
                            + " ms", busy);
                }
            }
        }
    }

    private void runOn(DataPlaneConnection connection, Exchange exchange) throws IOException {
        inUse.add(connection);
        if (closed) {
            inUse.remove(connection);
            connection.close();
            throw closedAccess("is closed", null);
        }
        try {
            exchange.run(connection);
        } catch (StoreException e) {
            // The node answered with an error frame, or a block failed its check after the whole
            // payload was taken: the connection is still in step unless the protocol broke.
            if (e.code() == StoreException.Code.PROTOCOL) {
                connection.close();
            } else {
                giveBack(connection);
            }
            throw e;
        } catch (IOException | RuntimeException e) {
            connection.close();
            if (closed) {
                throw closedAccess("was closed during the exchange", e);
            }
            throw e;
        } finally {
            inUse.remove(connection);
        }
        giveBack(connection);
    }

    /** What a request that finds this access closed fails with: an IOException, as every failure of a node's is. */
    private StoreException closedAccess(String when, Throwable cause) {
        return new StoreException(StoreException.Code.UNAVAILABLE, "node access to " + host + ":" + port + " " + when, cause);
    }

    /** Pools a connection for the next exchange; once this access is closed, closes it instead, as close() may have emptied the pool already. */
    private void giveBack(DataPlaneConnection connection) {
        if (closed) {
            connection.close();
            return;
        }
        idle.offerFirst(connection);
        if (closed) {
            closeIdle();
        }
    }

    @Override
    public void read(List<Range> ranges, List<BlockCheck> checks, MemorySegment dst, OnBusy onBusy) throws IOException {
        long[] dstOffsets = new long[ranges.size()];
        for (int r = 1; r < ranges.size(); r++) {
            dstOffsets[r] = dstOffsets[r - 1] + ranges.get(r - 1).length();
        }
        List<ArrivalCheck.Block> atClient = new ArrayList<>();
        List<BlockCheck> atNode = new ArrayList<>();
        for (BlockCheck block : checks) {
            int range = containingRange(block, ranges);
            if (range >= 0) {
                atClient.add(new ArrivalCheck.Block(dstOffsets[range] + block.offset() - ranges.get(range).offset(), block.length(),
                        block.crc32c(), block.offset()));
            } else {
                atNode.add(block);
            }
        }
        Request request = ranges.size() == 1 ? new Request.Read(ranges.getFirst(), atNode) : new Request.ReadRanges(ranges, atNode);
        withConnection(onBusy, c -> {
            ArrivalCheck check = new ArrivalCheck(c.peer(), atClient);
            c.exchange(request, MemorySegment.NULL, dst, check, deadlines.forBytes(dst.byteSize()));
            check.throwIfCorrupt();
        });
    }

    /** The one wanted range that holds the whole block and is the only one touching it, or -1. */
    private static int containingRange(BlockCheck block, List<Range> ranges) {
        int found = -1;
        for (int i = 0; i < ranges.size(); i++) {
            Range range = ranges.get(i);
            if (range.offset() < block.end() && block.offset() < range.end()) {
                if (found >= 0 || range.offset() > block.offset() || range.end() < block.end()) {
                    return -1;
                }
                found = i;
            }
        }
        return found;
    }

    @Override
    public int readStrided(Stride stride, List<BlockCheck> checks, MemorySegment dst, boolean hash, OnBusy onBusy)
            throws IOException {
        Checksum running = Checksums.newCrc32c();
        DataPlaneConnection.Arrivals arrivals = hash ? (offset, bytes) -> running.update(bytes.asByteBuffer())
                : DataPlaneConnection.Arrivals.NONE;
        withConnection(onBusy, c -> c.exchange(new Request.ReadStrided(stride, checks), MemorySegment.NULL, dst, arrivals,
                deadlines.forBytes(dst.byteSize())));
        return (int) running.getValue();
    }

    @Override
    public void write(long offset, MemorySegment src, Ticket grant) throws IOException {
        withConnection(c -> c.exchange(new Request.Write(new Range(offset, src.byteSize()), grant), src, MemorySegment.NULL,
                DataPlaneConnection.Arrivals.NONE, deadlines.forBytes(src.byteSize())));
    }

    /**
     * Zero-length READs carrying the checks: the node verifies every block before answering, and
     * sends nothing. The deadline counts the bytes the node reads to check, not the none it sends.
     * A batch checks at most {@link #VERIFY_BATCH_BYTES}, so the node answers well within the stall
     * window (and within the node's own deadline, which grows with the bytes it checks).
     */
    @Override
    public void verify(List<BlockCheck> checks) throws IOException {
        int from = 0;
        while (from < checks.size()) {
            int to = from;
            long bytes = 0;
            while (to < checks.size() && to - from < FrameCodec.MAX_CHECKS && (to == from || bytes + checks.get(to).length()
                    <= VERIFY_BATCH_BYTES)) {
                bytes += checks.get(to++).length();
            }
            List<BlockCheck> batch = checks.subList(from, to);
            Request request = new Request.Read(new Range(batch.getFirst().offset(), 0), batch);
            Duration deadline = deadlines.forBytes(bytes);
            withConnection(c -> c.exchange(request, MemorySegment.NULL, MemorySegment.NULL, DataPlaneConnection.Arrivals.NONE,
                    deadline));
            from = to;
        }
    }

    @Override
    public void close() {
        closed = true;
        closeIdle();
        inUse.forEach(DataPlaneConnection::abort);
    }

    private void closeIdle() {
        DataPlaneConnection connection;
        while ((connection = idle.pollFirst()) != null) {
            connection.close();
        }
    }
}
