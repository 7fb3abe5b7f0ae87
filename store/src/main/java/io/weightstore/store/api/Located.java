package io.weightstore.store.api;

import java.util.Map;

/** An object opened for reading: its slices, the nodes holding them (with liveness), and the lease taken. */
public record Located(ObjectMeta object, Map<String, NodeStatus> nodes, Lease lease) {
    public Located {
        nodes = Map.copyOf(nodes);
    }

    public Located withLease(Lease renewed) {
        return new Located(object, nodes, renewed);
    }
}
