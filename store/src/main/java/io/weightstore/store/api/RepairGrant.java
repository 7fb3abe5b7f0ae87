package io.weightstore.store.api;

import java.time.Instant;
import java.util.Map;

/**
 * Room for a new copy of one slice of a sealed object, handed out by {@link MasterApi#repairStart}:
 * the caller writes the slice's bytes at {@code target} on {@code node}, has them checked, and only
 * then commits with {@link MasterApi#repairEnd}. Until that commit the object's metadata is
 * unchanged, so readers never see the copy while it is being written.
 *
 * @param replaces the node whose copy this one takes the place of, or empty when it adds a copy to
 *     a slice with fewer replicas than its object asked for
 * @param deadline after which the master gives the room back unless the repair was committed
 * @param tickets on a secure cluster, a session ticket for the target's node
 * @param writeGrant on a secure cluster, the master's grant to write the copy at {@code target}
 */
public record RepairGrant(String repairId, String key, int slice, ReplicaRef target, NodeInfo node, String replaces,
        Instant deadline, Map<String, Ticket> tickets, Ticket writeGrant) {
    public RepairGrant {
        replaces = replaces == null ? "" : replaces;
        tickets = Map.copyOf(tickets);
    }

    public RepairGrant(String repairId, String key, int slice, ReplicaRef target, NodeInfo node, String replaces, Instant deadline) {
        this(repairId, key, slice, target, node, replaces, deadline, Map.of(), Ticket.none());
    }

    /** The copy is rewritten where it was: its node is up, only its bytes were bad. */
    public boolean inPlace() {
        return target.nodeId().equals(replaces);
    }
}
