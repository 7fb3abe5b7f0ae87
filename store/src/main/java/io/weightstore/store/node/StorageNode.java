package io.weightstore.store.node;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.MasterSilence;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.concurrent.DeadlineWait;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.logging.RateLimitedLog;
import io.weightstore.store.metrics.NodeMetrics;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Peers;
import io.weightstore.store.wire.Status;
import io.weightstore.store.wire.TcpSockets;
import io.weightstore.store.wire.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A storage node: maps its pool file, serves the data plane on a TCP port, and keeps itself
 * registered with the master through heartbeats. It never decides placement; it serves and accepts
 * bytes at offsets the master handed out. One platform thread per connection: the read path is
 * sendfile, and under a virtual thread the JDK puts the socket in non-blocking mode, so
 * {@code transferTo} returns 0 whenever the socket buffer is full and the transfer would need a
 * busy wait (tried: reads then fail mid-transfer). So connections are bounded
 * ({@link NodeOptions#maxConnections()}); at the bound a connection idle a second or more (waiting for
 * its handshake or a request) is closed to admit a new one ({@link IdleConnections}), and when none is the new one is told BUSY
 * in its handshake, from a virtual thread that holds nothing but that short exchange.
 */
public final class StorageNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);
    private static final long MIN_ACCEPT_PAUSE_MILLIS = 10;
    private static final long MAX_ACCEPT_PAUSE_MILLIS = 1_000;
    /** Connections past the limit told BUSY at once; more are closed unanswered. */
    private static final int MAX_REFUSING = 64;
    /** How long a close waits for the threads at work on the pool; each is bounded by its deadlines anyway. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    /**
     * How long a registration waits for the copies and writes it stops: an interrupted copy stops at its next socket
     * call, a write whose connection it closed once the piece it holds is in the pool.
     */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private final PoolFile pool;
    private final boolean writesThroughMapping;
    private final ServerSocketChannel server;
    /** As the kernel reported it for the listening socket, read once before the bind: read later, it could race a close. */
    private final String congestionControl;
    private final MasterApi master;
    private final NodeOptions options;
    private final Optional<NodeKeys> keys;
    private final DataPlaneSecurity security;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final WritesInProgress writes = new WritesInProgress();
    private final Set<SocketChannel> refused = ConcurrentHashMap.newKeySet();
    private final IdleConnections idle = new IdleConnections();
    /** The threads that serve or refuse connections, which a close waits for before it unmaps the pool under them. */
    private final Set<Thread> serving = ConcurrentHashMap.newKeySet();
    private final DeadlineTimer deadlines = new DeadlineTimer("node-deadlines");
    private final RateLimitedLog refusals = new RateLimitedLog(log, 10, Duration.ofMinutes(1));
    private final Semaphore refusing = new Semaphore(MAX_REFUSING);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final NodeMetrics metrics = new NodeMetrics();
    private final NodeCounters counters = new NodeCounters();
    private final VerifiedBlocks verified;
    private final Copier copier;
    private final Scrubber scrubber;
    private final Thread acceptor;
    private final Thread heartbeats;
    private volatile Duration heartbeatInterval = MasterSilence.DEFAULT_INTERVAL;
    private volatile boolean registered;
    /** When the master last answered a registration or a heartbeat (System.nanoTime). */
    private volatile long lastAnswerNanos;

    private StorageNode(PoolFile pool, Listening listening, MasterApi master, NodeOptions options, Optional<NodeKeys> keys,
            DataPlaneSecurity security) {
        this.pool = pool;
        this.writesThroughMapping = pool.writesThroughMapping();
        this.server = listening.server();
        this.congestionControl = listening.congestionControl();
        this.master = master;
        this.options = options;
        this.keys = keys;
        this.security = security;
        this.verified = new VerifiedBlocks(pool.capacity(), options.checkTrust(), System::nanoTime);
        this.copier = new Copier(pool, master, options.authentication(), options.deadlines(), deadlines, counters, verified,
                options.congestionControl());
        this.scrubber = new Scrubber(pool, options.scrubBytesPerSecond(), counters, metrics, verified);
        this.acceptor = Thread.ofPlatform().name("node-accept-" + pool.nodeId()).unstarted(this::acceptLoop);
        this.heartbeats = Thread.ofPlatform().daemon().name("node-heartbeat-" + pool.nodeId()).unstarted(this::heartbeatLoop);
        metrics.watch(pool::capacity, connections::size, this::isRegistered);
    }

    /**
     * Opens (or creates) the pool, binds the data-plane port, registers with the master at
     * {@code masterAddress} (HOST:PORT, or several separated by commas for a group of masters) and starts serving.
     */
    public static StorageNode start(String masterAddress, NodeOptions options) throws StoreException {
        Optional<NodeKeys> keys = options.secure() ? Optional.of(new NodeKeys()) : Optional.empty();
        MasterApi master = MasterClients.connect(masterAddress, options.authentication(), keys);
        try {
            return start(master, options, keys);
        } catch (StoreException | RuntimeException e) {
            master.close();
            throw e;
        }
    }

    /**
     * As {@link #start(String, NodeOptions)}, registering through {@code master}, which the node closes
     * with itself; a secure node checks the tickets its master seals with {@code keys}, the ones
     * {@code master} sends at each registration.
     */
    static StorageNode start(MasterApi master, NodeOptions options, Optional<NodeKeys> keys) throws StoreException {
        // A secure node's id is its credential's, known before the pool is opened; an open node admits anyone.
        DataPlaneSecurity security = DataPlaneSecurity.of(options, options.credentialNodeId().orElse(""), keys);
        PoolRoom.require(options.pool(), options.capacity());
        // The port first: one that is taken must not leave a new pool file behind.
        Listening listening = listen(options);
        PoolFile pool;
        try {
            pool = PoolFile.openOrCreate(options.pool(), options.capacity(), options.credentialNodeId().orElse(null));
        } catch (StoreException | RuntimeException e) {
            try {
                listening.server().close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        StorageNode node = new StorageNode(pool, listening, master, options, keys, security);
        try {
            node.register();
        } catch (StoreException e) {
            log.warn("node {} could not register yet ({}); retrying in the background", pool.nodeId(), e.getMessage());
        }
        node.acceptor.start();
        node.heartbeats.start();
        return node;
    }

    /** The node's listening socket, and the congestion control the connections it accepts send under. */
    private record Listening(ServerSocketChannel server, String congestionControl) {}

    private static Listening listen(NodeOptions options) throws StoreException {
        ServerSocketChannel server = null;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            // Before the bind: every connection accepted then takes the algorithm from its first packet.
            setCongestionControl(server, options.congestionControl());
            String algorithm = TcpSockets.congestionControl(server);
            InetSocketAddress address = new InetSocketAddress(options.bindHost(), options.port());
            if (address.isUnresolved()) {
                // Not the command line's fault alone: a name may resolve once the network is up, so it is worth trying again.
                throw new StoreException(StoreException.Code.UNAVAILABLE, "cannot listen on " + options.bindHost() + ":"
                        + options.port() + ": the name " + options.bindHost() + " does not resolve");
            }
            server.bind(address, 128);
            return new Listening(server, algorithm);
        } catch (IOException e) {
            if (server != null) {
                try {
                    server.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof StoreException refused) {
                throw refused;
            }
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + options.bindHost() + ":" + options.port() + ": "
                    + e.getMessage(), e);
        }
    }

    private static void setCongestionControl(ServerSocketChannel server, CongestionControl algorithm) throws StoreException {
        try {
            TcpSockets.setCongestionControl(server, algorithm);
        } catch (IOException refused) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "node data plane: " + refused.getMessage(), refused);
        }
    }

    /** The TCP congestion control the node's answers go out under, as the kernel reported it for the listening socket. */
    public String congestionControl() {
        return congestionControl;
    }

    public String nodeId() {
        return pool.nodeId();
    }

    /** The UUID of the pool this node serves, which callers name in their hello. */
    public UUID poolUuid() {
        return pool.uuid();
    }

    public int port() {
        try {
            return ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("node socket closed", e);
        }
    }

    public long capacity() {
        return pool.capacity();
    }

    /**
     * True once the master took this node's registration, until a heartbeat finds it unknown or the master
     * has been silent for longer than {@link MasterSilence} allows at the heartbeat interval (by then it counts
     * this node down): a node's readiness.
     */
    public boolean isRegistered() {
        return registered && new MasterSilence(heartbeatInterval).answered(lastAnswerNanos, System.nanoTime());
    }

    /** This node's counters and gauges, for whoever runs it to expose. */
    public NodeMetrics metrics() {
        return metrics;
    }

    private NodeInfo info() {
        return new NodeInfo(pool.nodeId(), new Endpoint(options.advertisedHost(), port()), pool.path().toAbsolutePath().toString(),
                pool.uuid(), pool.capacity());
    }

    /**
     * Registers, with a new grant key: the master it reaches may not be the one that sealed the grants given so far.
     * A master that does not know this node does not know the copies it makes either (it restarted, or another took
     * over), and counts their room free: it may hand that room to a put. So every copy stops writing first, and every
     * write in progress is ended once the grant key that authorized it is gone.
     */
    private void register() throws StoreException {
        registered = false;
        if (!copier.stopAll(System.nanoTime() + STOP_WAIT.toNanos())) {
            throw new StoreException(StoreException.Code.UNAVAILABLE, "node " + pool.nodeId() + " still has copies an earlier master"
                    + " ordered writing into its pool " + STOP_WAIT.toSeconds() + " s after stopping them; it registers once they stop");
        }
        keys.ifPresent(NodeKeys::renewGrantKey);
        int ended = writes.endAll(System.nanoTime() + STOP_WAIT.toNanos());
        if (ended > 0) {
            log.info("node {}: ended {} writes in progress for the master before; their puts fail", pool.nodeId(), ended);
        }
        heartbeatInterval = master.registerNode(info());
        lastAnswerNanos = System.nanoTime();
        registered = true;
    }

    /**
     * Heartbeats only once registered: a node whose registration was refused (another pool under its
     * id) must not keep the old registration alive by heartbeating under the same id. Each heartbeat
     * reports the node's load, its copies and what its scrubber found, and takes the master's orders.
     * A heartbeat that fails unexpectedly is retried too: this thread ending would leave the node
     * serving while its master counts it lost and copies its replicas elsewhere.
     */
    private void heartbeatLoop() {
        while (!closed.get()) {
            try {
                Thread.sleep(heartbeatInterval);
                if (!registered || !heartbeat()) {
                    register();
                }
            } catch (InterruptedException e) {
                return;
            } catch (StoreException e) {
                if (!closed.get()) {
                    refusals.warn("node {}: {}; will retry", pool.nodeId(), e.getMessage());
                }
            } catch (RuntimeException | Error e) {
                refusals.warn("node {}: heartbeat failed: {}; will retry", pool.nodeId(), e.toString());
            }
        }
    }

    /** False when the master does not know this node, which must register again. */
    private boolean heartbeat() throws StoreException {
        List<ScrubFinding> found = scrubber.takeFindings();
        NodeOrders orders = null;
        try {
            orders = master.heartbeat(new NodeReport(pool.nodeId(), counters.load(connections.size()), copier.progress(), found,
                    scrubber.room()));
        } finally {
            // Unheard, whatever the failure: the findings go with the next heartbeat rather than wait a whole scrub pass.
            if (orders == null) {
                scrubber.putBack(found);
            }
        }
        lastAnswerNanos = System.nanoTime();
        if (!orders.known()) {
            scrubber.putBack(found);
            return false;
        }
        copier.accept(orders.copies(), orders.copyBytesPerSecond());
        scrubber.accept(orders.scrub());
        return true;
    }

    /** Bytes this node has served to readers since it started. */
    public long bytesServed() {
        return counters.bytesServed();
    }

    /**
     * Accepts connections. A failed accept is retried after a pause that doubles to a second: the
     * usual cause is a process out of file descriptors, which no retry cures at once, and retrying at
     * once would spin a core and flood the log while the pending connections wait in the backlog. A
     * connection that cannot be served (a process out of threads, as a container's limit on them makes
     * it) is closed, and accepting goes on after the same pause: this thread ending would leave the
     * port bound, the node heartbeating, and no connection ever answered.
     */
    private void acceptLoop() {
        long pauseMillis = 0;
        while (!closed.get()) {
            SocketChannel socket;
            try {
                socket = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed.get()) {
                    return;
                }
                pauseMillis = nextPause(pauseMillis);
                refusals.warn("node {}: accept failed: {}; accepting again in {} ms", pool.nodeId(), e.getMessage(), pauseMillis);
                if (!pause(pauseMillis)) {
                    return;
                }
                continue;
            }
            try {
                admit(socket);
                pauseMillis = 0;
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                idle.forget(socket);
                connections.remove(socket);
                Peers.closeQuietly(socket);
                pauseMillis = nextPause(pauseMillis);
                refusals.warn("node {}: cannot serve a connection: {}; accepting again in {} ms", pool.nodeId(), e.toString(),
                        pauseMillis);
                if (!pause(pauseMillis)) {
                    return;
                }
            }
        }
    }

    private static long nextPause(long previousMillis) {
        return Math.clamp(previousMillis * 2, MIN_ACCEPT_PAUSE_MILLIS, MAX_ACCEPT_PAUSE_MILLIS);
    }

    /** False when interrupted: the node is closing. */
    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException interrupted) {
            return false;
        }
    }

    /** Serves {@code socket} on a thread of its own, or at the limit makes room for it, or refuses it BUSY, or closes it. */
    private void admit(SocketChannel socket) throws IOException {
        socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (connections.size() >= options.maxConnections() && !makeRoom(socket)) {
            // Each refusal holds a descriptor for up to its handshake's deadline: past a bound, a flood is just closed.
            if (!refusing.tryAcquire()) {
                socket.close();
                return;
            }
            refused.add(socket);
            try {
                serve(Thread.ofVirtual().name("node-refuse-" + pool.nodeId()), () -> {
                    try {
                        refuseBusy(socket);
                    } finally {
                        refused.remove(socket);
                        refusing.release();
                    }
                });
            } catch (RuntimeException | OutOfMemoryError e) {
                refused.remove(socket);
                refusing.release();
                throw e;
            }
            return;
        }
        connections.add(socket);
        // Not at work until its whole hello arrives: a peer that connects and stays silent may be closed to make room.
        idle.idle(socket);
        serve(Thread.ofPlatform().daemon().name("node-conn-" + pool.nodeId()), () -> {
            try {
                new RequestHandler(socket, pool, writesThroughMapping, verified, security, options.deadlines(), deadlines,
                        refusals, counters, metrics, idle, writes).run();
            } finally {
                idle.forget(socket);
                connections.remove(socket);
            }
        });
    }

    /** Starts {@code work} on a thread from {@code builder}, which a close waits for; throws, holding nothing, when none can start. */
    private void serve(Thread.Builder builder, Runnable work) {
        Thread thread = builder.unstarted(() -> {
            try {
                work.run();
            } finally {
                serving.remove(Thread.currentThread());
            }
        });
        serving.add(thread);
        try {
            thread.start();
        } catch (RuntimeException | OutOfMemoryError e) {
            serving.remove(thread);
            throw e;
        }
    }

    /** Closes the connection idle longest to admit {@code socket} at the limit; false when every connection is at work. */
    private boolean makeRoom(SocketChannel socket) {
        if (idle.closeLongestIdle()) {
            log.debug("node {}: at its {} connections, closed the longest idle to admit one from {}", pool.nodeId(),
                    options.maxConnections(), Peers.address(socket));
            return true;
        }
        return false;
    }

    /** Takes the client's hello (so the reply is not lost to a reset) and answers BUSY, within the handshake deadline. */
    private void refuseBusy(SocketChannel socket) {
        refusals.warn("node {}: refused a connection from {}: {} connections are open, the limit", pool.nodeId(),
                Peers.address(socket), options.maxConnections());
        // In the connection's own protocol, TLS handshake included, so the client hears BUSY rather than a broken handshake.
        try (socket; DeadlineTimer.Deadline deadline = deadlines.arm(socket, options.deadlines().base());
                Transport transport = security.accept(socket)) {
            ByteBuffer hello = ByteBuffer.allocate(FrameCodec.HELLO_BYTES);
            while (hello.hasRemaining() && transport.read(hello) >= 0) {
                // A hello is 8 bytes; the ticket that may follow is left unread, as the connection ends here.
            }
            transport.write(FrameCodec.encodeHelloReply(Status.BUSY));
        } catch (IOException e) {
            log.debug("node {}: refusing a connection: {}", pool.nodeId(), e.getMessage());
        }
    }

    /** Connections being served now, for tests and status. */
    public int openConnections() {
        return connections.size();
    }

    /** Stops serving: closes the port and every connection, then unmaps the pool. Data stays in the pool file. */
    @Override
    public void close() throws StoreException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // The heartbeats first (their orders would start copies and scrubs, their registration read the port), then the
        // acceptor: a connection it accepts while the others are being closed would wait out its handshake's deadline.
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        heartbeats.interrupt();
        boolean ended = DeadlineWait.join(heartbeats, deadline);
        try {
            server.close();
        } catch (IOException e) {
            log.warn("node {}: error while closing its port: {}", pool.nodeId(), e.getMessage());
        }
        ended &= DeadlineWait.join(acceptor, deadline);
        for (SocketChannel socket : Stream.concat(connections.stream(), refused.stream()).toList()) {
            try {
                socket.close();
            } catch (IOException e) {
                log.debug("node {}: error while closing a connection: {}", pool.nodeId(), e.getMessage());
            }
        }
        copier.close();
        scrubber.close();
        // Threads end at their next socket call, or once a gather or check of pool memory in hand is done: wait for them,
        // so none finds its pool unmapped or its deadline timer stopped.
        for (Thread thread : serving) {
            ended &= DeadlineWait.join(thread, deadline);
        }
        ended &= copier.awaitEnd(deadline);
        ended &= scrubber.awaitEnd(deadline);
        if (!ended) {
            log.warn("node {}: threads still at work on the pool {} s after close; unmapping it anyway", pool.nodeId(),
                    CLOSE_WAIT.toSeconds());
        }
        deadlines.close();
        master.close();
        pool.close();
    }
}
