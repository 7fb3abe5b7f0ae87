package io.weightstore.store.grpc;

import io.weightstore.store.api.Ticket;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.NodeTicket;
import io.weightstore.store.security.TicketKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where a secure master seals tickets: it keeps each node's keys (from its latest registration; in
 * memory only, so after a restart a node is asked to register again) and seals, for a caller it has
 * authenticated, session tickets to the nodes of an object and read grants for the ranges a node
 * copies from another, with the node's session key, and write grants for a put's places with its
 * grant key, which the node renews at each registration ({@link io.weightstore.store.security.NodeKeys}).
 */
final class TicketOffice {
    /** Long enough for a day of loads through one connection pool; every locate hands out fresh ones. */
    static final Duration SESSION_LIFETIME = Duration.ofHours(12);
    /** A put's (or a copy's) bytes must arrive within its own deadline; this bounds a stolen grant's use. */
    static final Duration WRITE_LIFETIME = Duration.ofMinutes(15);

    private record Keys(TicketKey session, TicketKey grant) {}

    private final Map<String, Keys> keys = new ConcurrentHashMap<>();

    void register(String nodeId, TicketKey session, TicketKey grant) {
        keys.put(nodeId, new Keys(session, grant));
    }

    boolean knows(String nodeId) {
        return keys.containsKey(nodeId);
    }

    /** A session ticket for {@code caller}, bound to its certificate when {@code certified}: the master knew it by one. */
    Optional<Ticket> session(String nodeId, Identity caller, boolean certified) {
        return Optional.ofNullable(keys.get(nodeId))
                .map(key -> NodeTicket.session(nodeId, caller, Instant.now().plus(SESSION_LIFETIME), certified).seal(key.session()));
    }

    /** A node's grant to read one range of another node's pool, for a copy it was asked to make. */
    Optional<Ticket> read(String nodeId, Identity caller, long offset, long length) {
        return Optional.ofNullable(keys.get(nodeId))
                .map(key -> NodeTicket.read(nodeId, caller, Instant.now().plus(WRITE_LIFETIME), offset, length).seal(key.session()));
    }

    /**
     * A grant to write one range of a node's pool, for a put or a repair that ends at {@code until}: the
     * master frees the range when the put times out, and a grant that outlived it would let its holder
     * write into whatever is placed there next.
     */
    Optional<Ticket> write(String nodeId, Identity caller, long offset, long length, Instant until) {
        Instant latest = Instant.now().plus(WRITE_LIFETIME);
        Instant expires = until.isBefore(latest) ? until : latest;
        return Optional.ofNullable(keys.get(nodeId))
                .map(key -> NodeTicket.write(nodeId, caller, expires, offset, length).seal(key.grant()));
    }
}
