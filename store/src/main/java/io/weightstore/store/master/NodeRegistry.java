package io.weightstore.store.master;

import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.LongSupplier;

/**
 * The nodes the master knows: their registrations, the free space of each pool segment, their
 * liveness by heartbeat and the load they last reported, which are being drained, and which are
 * known to have lost their pool. Not thread-safe, but for {@link #heard}: the master serialises access.
 */
final class NodeRegistry {
    private final Map<String, NodeInfo> nodes = new LinkedHashMap<>();
    private final Map<String, SegmentAllocator> space = new HashMap<>();
    /** Concurrent: {@link #heard} writes it outside the master's monitor. */
    private final Map<String, Long> lastHeartbeat = new ConcurrentHashMap<>();
    /** Liveness as last reported by {@link #livenessChanges}, so each change is reported once. */
    private final Map<String, Boolean> reported = new HashMap<>();
    private final Map<String, NodeLoad> loads = new HashMap<>();
    private final Set<String> draining = new HashSet<>();
    private final Set<String> lostPools = new HashSet<>();
    private final GrantedRanges granted = new GrantedRanges();
    private final LongSupplier clock;
    private final Duration deadline;
    /** When this master started: a node it has not heard from yet counts as down since then, not since ever. */
    private final long since;

    NodeRegistry(LongSupplier clock, Duration deadline) {
        this.clock = clock;
        this.deadline = deadline;
        this.since = clock.getAsLong();
    }

    /**
     * Adds a node known from the metadata; it counts as down until it heartbeats, but is taken to have
     * been up, so only a node that stays silent is reported down.
     */
    void recover(NodeInfo node) {
        nodes.put(node.nodeId(), node);
        reported.put(node.nodeId(), true);
        space.put(node.nodeId(), new SegmentAllocator(node.capacity()));
    }

    Optional<NodeInfo> get(String nodeId) {
        return Optional.ofNullable(nodes.get(nodeId));
    }

    /** Records a (re-)registration with the node's own pool and counts it as a heartbeat. */
    void register(NodeInfo node) {
        nodes.put(node.nodeId(), node);
        space.computeIfAbsent(node.nodeId(), id -> new SegmentAllocator(node.capacity()));
        lastHeartbeat.put(node.nodeId(), clock.getAsLong());
        lostPools.remove(node.nodeId());
    }

    /**
     * False when the node must register again: it is unknown, or known only from the metadata, not yet
     * registered with this master. A secure node renews its grant key at each registration, so the
     * write grants of a master before this one (whose reach this one does not know) write nothing.
     */
    boolean heartbeat(String nodeId, NodeLoad load) {
        // Only a registration records a first heartbeat, and forgetting a node removes both.
        if (!lastHeartbeat.containsKey(nodeId)) {
            return false;
        }
        loads.put(nodeId, load);
        return true;
    }

    /**
     * Records a heartbeat's arrival, from any thread, and says whether the node was up before it. A
     * node is alive when it reports, not when the master's queue of metadata writes lets its report
     * in: the liveness tick must not find it down while its report waits. A node that has not
     * registered is not recorded (its report is refused later, under the monitor).
     */
    boolean heard(String nodeId) {
        long now = clock.getAsLong();
        boolean[] wasUp = {false};
        lastHeartbeat.computeIfPresent(nodeId, (id, last) -> {
            wasUp[0] = now - last <= deadline.toMillis();
            return Math.max(last, now);
        });
        return wasUp[0];
    }

    /**
     * Whether a node's copies are gone for the master's purposes: it is unknown, its pool is known to
     * be lost, or it has been down for {@code repairAfter} (counted from this master's start at most).
     */
    boolean isLost(String nodeId, Duration repairAfter) {
        NodeInfo node = nodes.get(nodeId);
        if (node == null || lostPools.contains(nodeId)) {
            return true;
        }
        if (isUp(node)) {
            return false;
        }
        long heard = Math.max(since, lastHeartbeat.getOrDefault(nodeId, since));
        return clock.getAsLong() - heard - deadline.toMillis() >= repairAfter.toMillis();
    }

    /** The node came back under its id with another pool, or another node now serves at its address: its copies are gone. */
    void poolLost(String nodeId) {
        lostPools.add(nodeId);
    }

    boolean isPoolLost(String nodeId) {
        return lostPools.contains(nodeId);
    }

    void drain(String nodeId, boolean on) {
        if (on) {
            draining.add(nodeId);
        } else {
            draining.remove(nodeId);
        }
    }

    boolean isDraining(String nodeId) {
        return draining.contains(nodeId);
    }

    /** Nodes that may take new copies: up and not being drained. */
    List<NodeInfo> placeable() {
        return up().stream().filter(n -> !draining.contains(n.nodeId())).toList();
    }

    boolean isUp(NodeInfo node) {
        return isUp(node, lastHeartbeat.get(node.nodeId()));
    }

    /** Whether {@code node} is up, heard last at {@code last} (null: not since it registered with this master). */
    private boolean isUp(NodeInfo node, Long last) {
        if (node.endpoint().isInProcess()) {
            return true; // an in-process pool lives and dies with the master
        }
        return last != null && clock.getAsLong() - last <= deadline.toMillis();
    }

    List<NodeInfo> up() {
        return nodes.values().stream().filter(this::isUp).toList();
    }

    /** One read of the node's last heartbeat, which {@link #heard} may change meanwhile: its liveness and date agree. */
    NodeStatus status(NodeInfo node) {
        Long last = lastHeartbeat.get(node.nodeId());
        return new NodeStatus(node, space.get(node.nodeId()).used(), isUp(node, last), Instant.ofEpochMilli(last == null ? 0L : last),
                loads.getOrDefault(node.nodeId(), NodeLoad.none()), draining.contains(node.nodeId()));
    }

    /**
     * The nodes whose liveness changed since the last call, as they are now. A node seen for the
     * first time is reported only if it is down: its registration already said it is up. Each node's
     * liveness is looked at once: a heartbeat {@link #heard} in between would otherwise have a change
     * recorded as down reported as up, and the node reported up again at the next call.
     */
    List<NodeStatus> livenessChanges() {
        List<NodeStatus> changed = new ArrayList<>();
        for (NodeInfo node : nodes.values()) {
            NodeStatus now = status(node);
            Boolean before = reported.put(node.nodeId(), now.up());
            if (before == null ? !now.up() : before != now.up()) {
                changed.add(now);
            }
        }
        return changed;
    }

    List<NodeStatus> statuses() {
        return nodes.values().stream().map(this::status).toList();
    }

    /** The nodes holding replicas of {@code object}, with their liveness. */
    Map<String, NodeStatus> holders(ObjectMeta object) {
        Map<String, NodeStatus> involved = new LinkedHashMap<>();
        for (SliceMeta slice : object.slices()) {
            for (ReplicaRef replica : slice.replicas()) {
                NodeInfo node = nodes.get(replica.nodeId());
                if (node != null) {
                    involved.computeIfAbsent(node.nodeId(), id -> status(node));
                }
            }
        }
        return involved;
    }

    /** Drops a node and its segment's accounting: nothing the master keeps refers to its ranges any more. */
    void forget(String nodeId) {
        nodes.remove(nodeId);
        space.remove(nodeId);
        lastHeartbeat.remove(nodeId);
        reported.remove(nodeId);
        loads.remove(nodeId);
        draining.remove(nodeId);
        lostPools.remove(nodeId);
        granted.forgetNode(nodeId);
    }

    SegmentAllocator space(String nodeId) {
        return space.get(nodeId);
    }

    long capacity() {
        return space.values().stream().mapToLong(SegmentAllocator::capacity).sum();
    }

    long used() {
        return space.values().stream().mapToLong(SegmentAllocator::used).sum();
    }

    /** Marks the ranges of an object (sealed or pending) taken, when the master rebuilds its state. */
    void reserve(ObjectMeta object) {
        forEachReplica(object, (allocator, replica, length) -> allocator.reserve(replica.offset(), length));
    }

    /** Takes one range a restarted master must keep; false when its node is unknown or the range is not free. */
    boolean reserve(ReplicaRef replica, long length) {
        SegmentAllocator allocator = space.get(replica.nodeId());
        if (allocator == null || !allocator.isFree(replica.offset(), length)) {
            return false;
        }
        allocator.reserve(replica.offset(), length);
        return true;
    }

    /** Records that {@code holder}'s write grants for every replica of {@code object} live until {@code grantsExpireAt}. */
    void granted(ObjectMeta object, Instant grantsExpireAt, String holder) {
        forEachReplica(object, (allocator, replica, length) -> granted.granted(replica, length, grantsExpireAt.toEpochMilli(), holder));
    }

    /** Records that {@code holder}'s write grant for one range lives until {@code grantExpiresAt}. */
    void granted(ReplicaRef replica, long length, Instant grantExpiresAt, String holder) {
        granted.granted(replica, length, grantExpiresAt.toEpochMilli(), holder);
    }

    /** Frees the ranges of an object's replicas, each once no write grant reaches it any more. */
    void release(ObjectMeta object) {
        release(object, Set.of());
    }

    /** As {@link #release(ObjectMeta)}, but for the replicas in {@code kept}, which something else still holds. */
    void release(ObjectMeta object, Set<ReplicaRef> kept) {
        forEachReplica(object, (allocator, replica, length) -> {
            if (!kept.contains(replica)) {
                release(replica, length);
            }
        });
    }

    /** Frees one replica's range once no write grant reaches it, unless its node was forgotten together with its segment. */
    void release(ReplicaRef replica, long length) {
        SegmentAllocator allocator = space.get(replica.nodeId());
        if (allocator != null && granted.releasable(replica, length, clock.getAsLong())) {
            allocator.release(replica.offset(), length);
        }
    }

    /**
     * The bytes of {@code object}'s replicas on the nodes {@code counted} admits that would be free for a put
     * of {@code caller}'s as soon as the object were removed: the ranges no live write grant reaches, or only
     * the caller's. The rest would be held, out of every allocator, until the grants expire.
     */
    long freedFor(ObjectMeta object, String caller, Predicate<String> counted) {
        long now = clock.getAsLong();
        long[] freed = {0};
        forEachReplica(object, (allocator, replica, length) -> {
            if (counted.test(replica.nodeId()) && granted.freeFor(replica, length, now, caller)) {
                freed[0] += SegmentAllocator.aligned(length);
            }
        });
        return freed[0];
    }

    /** The ranges held back for write grants that may still reach them. */
    List<GrantedRanges.Held> held() {
        return granted.held();
    }

    /** Frees the ranges held for write grants that have now expired. */
    void releaseLapsedGrants() {
        granted.expire(clock.getAsLong()).forEach(this::releaseHeld);
    }

    /**
     * Puts back in the allocators the held ranges that only {@code holder}'s grants reach, for a put of
     * its own to be placed in; {@link #holdUnused} takes back what the put did not use.
     */
    List<GrantedRanges.Held> lendHeld(String holder) {
        List<GrantedRanges.Held> lent = granted.heldOnlyFor(holder);
        lent.forEach(this::releaseHeld);
        return lent;
    }

    /** Holds again, as before, the parts of {@code lent} that are still free. */
    void holdUnused(List<GrantedRanges.Held> lent) {
        for (GrantedRanges.Held range : lent) {
            SegmentAllocator allocator = space.get(range.replica().nodeId());
            if (allocator != null) {
                for (Range part : allocator.takeFree(range.replica().offset(), range.length())) {
                    granted.hold(new GrantedRanges.Held(new ReplicaRef(range.replica().nodeId(), part.offset()), part.length(),
                            range.until(), range.holder()));
                }
            }
        }
    }

    private void releaseHeld(GrantedRanges.Held range) {
        SegmentAllocator allocator = space.get(range.replica().nodeId());
        if (allocator != null) {
            allocator.release(range.replica().offset(), range.length());
        }
    }

    /** Work on one replica's range in its node's segment. */
    @FunctionalInterface
    private interface ReplicaAction {
        void apply(SegmentAllocator allocator, ReplicaRef replica, long length);
    }

    private void forEachReplica(ObjectMeta object, ReplicaAction action) {
        for (SliceMeta slice : object.slices()) {
            for (ReplicaRef replica : slice.replicas()) {
                SegmentAllocator allocator = space.get(replica.nodeId());
                if (allocator != null) {
                    action.apply(allocator, replica, slice.length());
                }
            }
        }
    }
}
