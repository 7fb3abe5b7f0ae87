package io.weightstore.store.api;

import java.util.List;

/** The store at a glance: nodes with liveness and usage, object and pending-put counts. */
public record StoreStatus(List<NodeStatus> nodes, long objects, long pendingPuts) {
    public StoreStatus {
        nodes = List.copyOf(nodes);
    }

    public long capacity() {
        return nodes.stream().mapToLong(NodeStatus::capacity).sum();
    }

    public long used() {
        return nodes.stream().mapToLong(NodeStatus::used).sum();
    }

    public long nodesUp() {
        return nodes.stream().filter(NodeStatus::up).count();
    }
}
