package io.weightstore.store.node;

import io.weightstore.store.MasterApi;
import io.weightstore.store.StoreException;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.NodeInfo;
import io.weightstore.store.proto.RegisterNodeRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
    private final String advertisedHost;
    private final byte[] token;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptor;
    private final Thread heartbeats;
    private volatile long heartbeatIntervalMs = 1000;

    private StorageNode(PoolFile pool, ServerSocketChannel server, MasterApi master, String advertisedHost, String token) {
        this.pool = pool;
        this.server = server;
        this.master = master;
        this.advertisedHost = advertisedHost;
        this.token = token == null ? new byte[0] : token.getBytes(StandardCharsets.UTF_8);
        this.acceptor = Thread.ofPlatform().name("node-accept-" + pool.nodeId()).unstarted(this::acceptLoop);
        this.heartbeats = Thread.ofPlatform().daemon().name("node-heartbeat-" + pool.nodeId()).unstarted(this::heartbeatLoop);
    }

    /**
     * Opens (or creates) the pool, binds the data-plane port (0 for an ephemeral one), registers
     * with the master and starts serving.
     */
    public static StorageNode start(MasterApi master, Path poolPath, long capacity, String bindHost, int port,
            String advertisedHost, String token) throws StoreException {
        PoolFile pool = PoolFile.openOrCreate(poolPath, capacity);
        ServerSocketChannel server;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(bindHost, port), 128);
        } catch (IOException e) {
            pool.close();
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + bindHost + ":" + port + ": " + e.getMessage(), e);
        }
        StorageNode node = new StorageNode(pool, server, master, advertisedHost, token);
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
        return ((InetSocketAddress) localAddress()).getPort();
    }

    public PoolFile pool() {
        return pool;
    }

    private SocketAddress localAddress() {
        try {
            return server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("node socket closed", e);
        }
    }

    private NodeInfo info() {
        return NodeInfo.newBuilder().setNodeId(pool.nodeId()).setHost(advertisedHost).setPort(port())
                .setPoolPath(pool.path().toAbsolutePath().toString()).setPoolUuid(pool.uuid().toString())
                .setCapacity(pool.capacity()).build();
    }

    private void register() throws StoreException {
        heartbeatIntervalMs = master.registerNode(RegisterNodeRequest.newBuilder().setNode(info()).build())
                .getHeartbeatIntervalMs();
    }

    private void heartbeatLoop() {
        while (!closed.get()) {
            try {
                Thread.sleep(heartbeatIntervalMs);
                boolean known = master.heartbeat(HeartbeatRequest.newBuilder().setNodeId(pool.nodeId()).build()).getKnown();
                if (!known) {
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
