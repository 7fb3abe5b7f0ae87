package io.weightstore.store.api;

import java.util.Map;

/**
 * An object opened for reading: its slices, the nodes holding them (with liveness), the lease taken,
 * and on a secure cluster a session ticket for each of those nodes.
 */
public record Located(ObjectMeta object, Map<String, NodeStatus> nodes, Lease lease, Map<String, Ticket> tickets) {
    public Located {
        nodes = Map.copyOf(nodes);
        tickets = Map.copyOf(tickets);
    }

    public Located(ObjectMeta object, Map<String, NodeStatus> nodes, Lease lease) {
        this(object, nodes, lease, Map.of());
    }

    public Located withLease(Lease renewed) {
        return new Located(object, nodes, renewed, tickets);
    }

    public Located withTickets(Map<String, Ticket> sealed) {
        return new Located(object, nodes, lease, sealed);
    }
}
