package io.weightstore.store.node;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.pool.PoolFile;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A storage node: maps its pool file, serves the data plane on a TCP port, and keeps itself
 * registered with the master through heartbeats. It never decides placement; it serves and accepts
 * bytes at offsets the master handed out. One platform thread per connection: the read path is
 * sendfile, and under a virtual thread the JDK puts the socket in non-blocking mode, so
 * {@code transferTo} returns 0 whenever the socket buffer is full and the transfer would need a
 * busy wait (tried: reads then fail mid-transfer).
 */
public final class StorageNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);

    private final PoolFile pool;
    private final ServerSocketChannel server;
    private final MasterApi master;
    private final NodeOptions options;
    private final byte[] token;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptor;
    private final Thread heartbeats;
    private volatile Duration heartbeatInterval = Duration.ofSeconds(1);

    private StorageNode(PoolFile pool, ServerSocketChannel server, MasterApi master, NodeOptions options) {
        this.pool = pool;
        this.server = server;
        this.master = master;
        this.options = options;
        this.token = options.token().getBytes(StandardCharsets.UTF_8);
        this.acceptor = Thread.ofPlatform().name("node-accept-" + pool.nodeId()).unstarted(this::acceptLoop);
        this.heartbeats = Thread.ofPlatform().daemon().name("node-heartbeat-" + pool.nodeId()).unstarted(this::heartbeatLoop);
    }

    /**
     * Opens (or creates) the pool, binds the data-plane port, registers with the master at
     * {@code masterAddress} (HOST:PORT, or several separated by commas for a group of masters) and starts serving.
     */
    public static StorageNode start(String masterAddress, NodeOptions options) throws StoreException {
        MasterApi master = MasterClients.connect(masterAddress, options.token());
        try {
            return start(master, options);
        } catch (StoreException | RuntimeException e) {
            master.close();
            throw e;
        }
    }

    /** As {@link #start(String, NodeOptions)}, registering through {@code master}, which the node closes with itself. */
    static StorageNode start(MasterApi master, NodeOptions options) throws StoreException {
        PoolFile pool = PoolFile.openOrCreate(options.pool(), options.capacity());
        ServerSocketChannel server;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(options.bindHost(), options.port()), 128);
        } catch (IOException e) {
            pool.close();
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + options.bindHost() + ":" + options.port() + ": "
                    + e.getMessage(), e);
        }
        StorageNode node = new StorageNode(pool, server, master, options);
        try {
            node.register();
        } catch (StoreException e) {
            log.warn("node {} could not register yet ({}); retrying in the background", pool.nodeId(), e.getMessage());
        }
        node.acceptor.start();
        node.heartbeats.start();
        return node;
    }

    public String nodeId() {
        return pool.nodeId();
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

    private NodeInfo info() {
        return new NodeInfo(pool.nodeId(), new Endpoint(options.advertisedHost(), port()), pool.path().toAbsolutePath().toString(),
                pool.uuid(), pool.capacity());
    }

    private void register() throws StoreException {
        heartbeatInterval = master.registerNode(info());
    }

    private void heartbeatLoop() {
        while (!closed.get()) {
            try {
                Thread.sleep(heartbeatInterval);
                if (!master.heartbeat(pool.nodeId())) {
                    register();
                }
            } catch (InterruptedException e) {
                return;
            } catch (StoreException e) {
                log.warn("node {}: master unreachable ({}); will retry", pool.nodeId(), e.getMessage());
            }
        }
    }

    private void acceptLoop() {
        while (!closed.get()) {
            try {
                SocketChannel socket = server.accept();
                socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
                connections.add(socket);
                Thread.ofPlatform().daemon().name("node-conn-" + pool.nodeId()).start(() -> {
                    try {
                        new RequestHandler(socket, pool, token).run();
                    } finally {
                        connections.remove(socket);
                    }
                });
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed.get()) {
                    log.warn("node {}: accept failed: {}", pool.nodeId(), e.getMessage());
                }
            }
        }
    }

    /** Stops serving: closes the port and every connection, then unmaps the pool. Data stays in the pool file. */
    @Override
    public void close() throws StoreException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            server.close();
            for (SocketChannel socket : connections) {
                socket.close();
            }
            acceptor.join(5000);
        } catch (IOException e) {
            log.warn("node {}: error while closing sockets: {}", pool.nodeId(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        heartbeats.interrupt();
        master.close();
        pool.close();
    }
}
