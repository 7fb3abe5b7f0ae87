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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How this client reaches each node, made once and shared by every read and write: a pool of
 * data-plane connections per node, or the node's pool file mapped when this host sees it. On a
 * secure cluster it keeps the newest session ticket the master gave for each node, which a new
 * connection presents in its hello.
 *
 * <p>A node that comes back on another port, with another pool or with its pool at another path,
 * another node now at a node's port, or another pool file now at a mapped pool's path, outgrows what
 * this client had for it: the old connections and mapping close once the reads and writes holding
 * them are done. Without that, a long-running client (a server, a gateway) would keep a connection
 * per node restart and keep a replaced pool's memory mapped, which the host cannot reclaim while it is.
 */
final class NodeConnections implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeConnections.class);

    /** One node's access as this client saw the node, and how many reads and writes hold it now. */
    private static final class Reach {
        private final NodeInfo node;
        private final Optional<PoolFile> pool;
        private NodeAccess access;
        private int holders;

        private Reach(NodeInfo node, Optional<PoolFile> pool) {
            this.node = node;
            this.pool = pool;
        }
    }

    /** A node's access held by one read, write or check, which closes this when done with it. */
    final class Held implements AutoCloseable {
        private final Reach reach;

        private Held(Reach reach) {
            this.reach = reach;
        }

        NodeAccess access() {
            return reach.access;
        }

        @Override
        public void close() {
            release(reach);
        }
    }

    /** A pool file by identity and where its node says it is: a pool moved to another path is another file to map. */
    private record PoolSite(UUID uuid, String path) {
        static PoolSite of(NodeInfo node) {
            return new PoolSite(node.poolUuid(), node.poolPath());
        }
    }

    private final ClientOptions options;
    private final Object lock = new Object();
    /** Each node's reach as last seen, by node id. */
    private final Map<String, Reach> current = new HashMap<>();
    /** Reaches a newer one replaced, open until their last holder is done. */
    private final Set<Reach> outgrown = new HashSet<>();
    /** Pool files mapped here, or empty when this host does not see them. */
    private final Map<PoolSite, Optional<PoolFile>> localPools = new HashMap<>();
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

    /** The node's access, held until the caller closes what this returns. */
    Held hold(NodeInfo node) {
        List<AutoCloseable> done = new ArrayList<>();
        try {
            synchronized (lock) {
                Reach reach = reach(node, done);
                if (reach.access == null) {
                    reach.access = open(node, reach.pool);
                }
                reach.holders++;
                return new Held(reach);
            }
        } finally {
            closeAll(done);
        }
    }

    private void release(Reach reach) {
        List<AutoCloseable> done = List.of();
        synchronized (lock) {
            if (--reach.holders == 0 && outgrown.remove(reach)) {
                done = retire(reach);
            }
        }
        closeAll(done);
    }

    /** Whether reads from this node are memory copies from its pool mapped here. */
    boolean isLocal(NodeInfo node) {
        List<AutoCloseable> done = new ArrayList<>();
        try {
            synchronized (lock) {
                return reach(node, done).pool.isPresent();
            }
        } finally {
            closeAll(done);
        }
    }

    /**
     * The node's reach as {@code node} describes it; seen for the first time, it outgrows what it
     * replaces, and what no one holds of those goes into {@code done}, to close once the lock is free.
     */
    private Reach reach(NodeInfo node, List<AutoCloseable> done) {
        Reach known = current.get(node.nodeId());
        if (known != null && sameReach(known.node, node)) {
            return known;
        }
        Reach seen = new Reach(node, localPool(node));
        List<Reach> replaced = current.values().stream().filter(r -> r == known || replacedBy(r, seen)).toList();
        current.put(node.nodeId(), seen);
        for (Reach old : replaced) {
            current.remove(old.node.nodeId(), old);
            if (old.holders > 0) {
                outgrown.add(old);
            } else {
                done.addAll(retire(old));
            }
        }
        return seen;
    }

    private static boolean sameReach(NodeInfo a, NodeInfo b) {
        return a.endpoint().equals(b.endpoint()) && a.poolUuid().equals(b.poolUuid()) && a.poolPath().equals(b.poolPath());
    }

    /** Whether {@code newer}, another node's, now stands where {@code older} was: at its port, or in its mapped pool's file. */
    private static boolean replacedBy(Reach older, Reach newer) {
        boolean samePort = !newer.node.endpoint().isInProcess() && older.node.endpoint().equals(newer.node.endpoint());
        boolean samePoolFile = older.pool.isPresent() && newer.pool.isPresent() && older.pool.get() != newer.pool.get()
                && older.pool.get().path().equals(newer.pool.get().path());
        return samePort || samePoolFile;
    }

    /** What to close of a reach no one holds or will: its access, and its pool once no other reach maps it. */
    private List<AutoCloseable> retire(Reach reach) {
        List<AutoCloseable> done = new ArrayList<>();
        if (reach.access != null) {
            done.add(reach.access);
        }
        reach.pool.ifPresent(pool -> {
            boolean mappedElsewhere = Stream.concat(current.values().stream(), outgrown.stream())
                    .anyMatch(r -> r.pool.isPresent() && r.pool.get() == pool);
            if (!mappedElsewhere) {
                localPools.remove(PoolSite.of(reach.node));
                done.add(pool);
            }
        });
        return done;
    }

    private NodeAccess open(NodeInfo node, Optional<PoolFile> pool) {
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

    /** The node's pool file mapped here, when this host sees it and its identity matches. */
    private Optional<PoolFile> localPool(NodeInfo node) {
        if (!options.sameHostPath() && !node.endpoint().isInProcess()) {
            return Optional.empty();
        }
        return localPools.computeIfAbsent(PoolSite.of(node), site -> {
            Path path = Path.of(node.poolPath());
            if (node.poolPath().isEmpty() || !Files.isReadable(path)) {
                return Optional.empty();
            }
            try {
                PoolFile pool = PoolFile.open(path, Files.isWritable(path));
                if (pool.uuid().equals(site.uuid())) {
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
        List<AutoCloseable> all = new ArrayList<>();
        synchronized (lock) {
            Stream.concat(current.values().stream(), outgrown.stream()).filter(r -> r.access != null).forEach(r -> all.add(r.access));
            all.add(deadlines);
            localPools.values().forEach(pool -> pool.ifPresent(all::add));
        }
        closeAll(all);
    }

    private static void closeAll(List<AutoCloseable> closeables) {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                // An unmap refused while a read of the client's closing holds the pool (a native check in progress).
                log.debug("closing {}: {}", closeable, e.getMessage());
            }
        }
    }
}
