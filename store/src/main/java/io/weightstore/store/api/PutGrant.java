package io.weightstore.store.api;

import java.time.Instant;
import java.util.Map;

/**
 * Space reserved for a put: where each slice's replicas go, on which nodes, until when, and for which
 * writer. On a secure cluster it carries a session ticket per node and a write grant per replica
 * place, without which the nodes refuse the bytes. The object stays invisible to readers until
 * {@link MasterApi#putEnd} seals it.
 */
public record PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer,
        Map<String, Ticket> tickets, Map<ReplicaRef, Ticket> writeGrants) {
    public PutGrant {
        nodes = Map.copyOf(nodes);
        tickets = Map.copyOf(tickets);
        writeGrants = Map.copyOf(writeGrants);
    }

    public PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer) {
        this(putId, object, nodes, deadline, writer, Map.of(), Map.of());
    }

    public PutGrant withTickets(Map<String, Ticket> sessions, Map<ReplicaRef, Ticket> grants) {
        return new PutGrant(putId, object, nodes, deadline, writer, sessions, grants);
    }
}
