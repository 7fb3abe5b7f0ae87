package io.weightstore.store.api;

import java.time.Instant;
import java.util.Map;

/**
 * Space reserved for a put: where each slice's replicas go, on which nodes, until when, and for which
 * writer. On a secure cluster it carries a session ticket per node and a write grant per replica
 * place, without which the nodes refuse the bytes. The object stays invisible to readers until
 * {@link MasterApi#putEnd} seals it.
 */
public record PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer, String lock,
        Map<String, Ticket> tickets, Map<ReplicaRef, Ticket> writeGrants) {
    public PutGrant {
        nodes = Map.copyOf(nodes);
        tickets = Map.copyOf(tickets);
        writeGrants = Map.copyOf(writeGrants);
    }

    /** Under {@code lock} (see {@link PutOptions#lock()}), empty for none. */
    public PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer, String lock) {
        this(putId, object, nodes, deadline, writer, lock, Map.of(), Map.of());
    }

    public PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer) {
        this(putId, object, nodes, deadline, writer, "");
    }

    public PutGrant withTickets(Map<String, Ticket> sessions, Map<ReplicaRef, Ticket> grants) {
        return new PutGrant(putId, object, nodes, deadline, writer, lock, sessions, grants);
    }
}
