package io.weightstore.store.api;

import java.util.List;

/**
 * The store at a glance: nodes with liveness and usage, object and pending-put counts, how the
 * replicas stand, and for a group of masters the masters (which one leads) and the health of the
 * etcd members behind them; both lists are empty for a single master.
 *
 * @param held room on the nodes up held back for write grants, as {@link Room#held()} counts it for the caller
 */
public record StoreStatus(List<NodeStatus> nodes, long objects, long pendingPuts, List<MasterMember> masters,
        List<EtcdMemberStatus> etcd, ReplicationStatus replication, Room.Held held) {
    public StoreStatus {
        nodes = List.copyOf(nodes);
        masters = List.copyOf(masters);
        etcd = List.copyOf(etcd);
    }

    /** A single master's status. */
    public StoreStatus(List<NodeStatus> nodes, long objects, long pendingPuts, ReplicationStatus replication, Room.Held held) {
        this(nodes, objects, pendingPuts, List.of(), List.of(), replication, held);
    }

    public StoreStatus withGroup(List<MasterMember> groupMasters, List<EtcdMemberStatus> etcdMembers) {
        return new StoreStatus(nodes, objects, pendingPuts, groupMasters, etcdMembers, replication, held);
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
