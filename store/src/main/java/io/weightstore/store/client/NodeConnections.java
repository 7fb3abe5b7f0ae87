package io.weightstore.store.client;

import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.client.access.MappedNodeAccess;
import io.weightstore.store.client.access.NodeAccess;
import io.weightstore.store.client.access.SocketNodeAccess;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.TlsEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How this client reaches each node, made once and shared by every read and write: a pool of
 * data-plane connections per node, or the node's pool file mapped when this host sees it. On a
 * secure cluster it keeps the newest session ticket the master gave for each node, which a new
 * connection presents in its hello.
 */
final class NodeConnections implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeConnections.class);

    private final ClientOptions options;
    private final Map<String, NodeAccess> byNode = new ConcurrentHashMap<>();
    private final Map<UUID, Optional<PoolFile>> localPools = new ConcurrentHashMap<>();
    private final Map<String, Ticket> sessions = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final DeadlineTimer deadlines = new DeadlineTimer("store-deadlines");

    NodeConnections(ClientOptions options) {
        this.options = options;
    }

    /** Keeps the session tickets of a locate or a put, for connections opened from now on. */
    void admit(Map<String, Ticket> tickets) {
        sessions.putAll(tickets);
    }

    NodeAccess access(NodeInfo node) {
        // Keyed by where and what the node serves: a node back on another port, or with another pool, gets a new access.
        String id = node.nodeId() + "@" + node.endpoint() + "/" + node.poolUuid();
        return byNode.computeIfAbsent(id, k -> {
            Optional<PoolFile> pool = localPool(node);
            if (pool.isPresent()) {
                return new MappedNodeAccess(pool.get());
            }
            if (node.endpoint().isInProcess()) {
                throw new IllegalStateException("node " + node.nodeId() + " is in-process elsewhere; its pool "
                        + node.poolPath() + " is not visible here");
            }
            return new SocketNodeAccess(node.endpoint().host(), node.endpoint().port(), node.poolUuid(), tlsTo(node),
                    () -> sessions.getOrDefault(node.nodeId(), Ticket.none()), options.deadlines(), deadlines,
                    options.congestionControl());
        });
    }

    /** TLS to a secure cluster's node, which must prove to be the node the master named; none when insecure. */
    private Optional<TlsEndpoint> tlsTo(NodeInfo node) {
        if (options.authentication() instanceof Authentication.Insecure) {
            return Optional.empty();
        }
        try {
            return Optional.of(TlsEndpoint.client(options.authentication(), ExpectedPeer.exactly(new Identity(node.nodeId(), Role.NODE))));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS to node " + node.nodeId() + ": " + e.getMessage(), e);
        }
    }

    /** Whether reads from this node are memory copies from its pool mapped here. */
    boolean isLocal(NodeInfo node) {
        return localPool(node).isPresent();
    }

    /** The node's pool file mapped here, when this host sees it and its identity matches. */
    private Optional<PoolFile> localPool(NodeInfo node) {
        if (!options.sameHostPath() && !node.endpoint().isInProcess()) {
            return Optional.empty();
        }
        return localPools.computeIfAbsent(node.poolUuid(), uuid -> {
            Path path = Path.of(node.poolPath());
            if (node.poolPath().isEmpty() || !Files.isReadable(path)) {
                return Optional.empty();
            }
            try {
                PoolFile pool = PoolFile.open(path, Files.isWritable(path));
                if (pool.uuid().equals(uuid)) {
                    return Optional.of(pool);
                }
                pool.close();
            } catch (StoreException e) {
                log.debug("pool {} of node {} not usable locally: {}", path, node.nodeId(), e.getMessage());
            }
            return Optional.empty();
        });
    }

    /** Whether {@link #close} began: a read that fails from now on failed for it, not for its node. */
    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        byNode.values().forEach(NodeAccess::close);
        deadlines.close();
        localPools.values().forEach(p -> p.ifPresent(pool -> {
            try {
                pool.close();
            } catch (StoreException | IllegalStateException e) {
                // An unmap refused while a read of the client's closing holds the pool (a native check in progress).
                log.debug("closing pool {}: {}", pool.path(), e.getMessage());
            }
        }));
    }
}
