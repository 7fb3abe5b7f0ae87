package io.weightstore.store.master;

import io.weightstore.store.api.ReplicaRef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Ranges of node pools that a write grant may still reach. A grant is a ticket the node checks on
 * its own, so the master cannot take one back: a range freed before its last grant expires (a put
 * its writer aborted, an object deleted or replaced soon after it was written) is held here, out of
 * the allocator, until then, or its writer could write into the next object placed there. The
 * writer may have it back sooner, for a put of its own: it can spoil nothing there that it could not
 * spoil by writing its own put badly. Nodes judge expiry by their own clocks, so a hold lasts
 * {@link #CLOCK_SKEW_MILLIS} longer. In memory only: a master that restarts frees at once what was
 * held, which is safe because the grants are void by then (each node registers again with the new
 * master, and a secure node renews its grant key when it does). Not thread-safe; the master
 * serialises access.
 */
final class GrantedRanges {
    /** How far behind the master's a node's clock may be while it still refuses an expired grant in time. */
    static final long CLOCK_SKEW_MILLIS = 30_000;

    /**
     * A range of {@code length} bytes at {@code replica} that returns to its allocator at {@code until},
     * or sooner to {@code holder}, the only identity whose grants reach it (empty when several do).
     */
    record Held(ReplicaRef replica, long length, long until, String holder) {
        /** Whether only {@code identity}'s grants reach this range, so that a put of its own may take it at once. */
        boolean onlyFor(String identity) {
            return !identity.isEmpty() && holder.equals(identity);
        }
    }

    private record Grant(long length, long until, String holder) {
        Grant and(Grant other) {
            return new Grant(Math.max(length, other.length), Math.max(until, other.until), holder.equals(other.holder) ? holder : "");
        }
    }

    /** By node, then by offset. Live grants on one node never overlap: their ranges are allocated or held. */
    private final Map<String, NavigableMap<Long, Grant>> grants = new HashMap<>();
    private final List<Held> held = new ArrayList<>();

    void granted(ReplicaRef replica, long length, long grantExpiresAt, String holder) {
        grants.computeIfAbsent(replica.nodeId(), id -> new TreeMap<>())
                .merge(replica.offset(), new Grant(length, grantExpiresAt + CLOCK_SKEW_MILLIS, holder), Grant::and);
    }

    /** True when the range may go back to its allocator now; otherwise it is held until no grant reaches it. */
    boolean releasable(ReplicaRef replica, long length, long now) {
        Grant reaching = reaching(replica, length);
        if (reaching.until() <= now) {
            return true;
        }
        hold(new Held(replica, length, reaching.until(), reaching.holder()));
        return false;
    }

    /**
     * Whether a range freed now would be free for a put of {@code identity}'s at once: no live grant reaches
     * it, or only that identity's. Changes nothing.
     */
    boolean freeFor(ReplicaRef replica, long length, long now, String identity) {
        Grant reaching = reaching(replica, length);
        return reaching.until() <= now || !identity.isEmpty() && reaching.holder().equals(identity);
    }

    /** The grants that reach a range, as one: the latest expiry, and their holder if they have only one. */
    private Grant reaching(ReplicaRef replica, long length) {
        Grant none = new Grant(length, 0, "");
        NavigableMap<Long, Grant> onNode = grants.get(replica.nodeId());
        if (onNode == null) {
            return none;
        }
        long end = replica.offset() + length;
        Long from = onNode.floorKey(replica.offset());
        Grant reaching = null;
        for (Map.Entry<Long, Grant> e : onNode.tailMap(from == null ? replica.offset() : from, true).entrySet()) {
            if (e.getKey() >= end) {
                break;
            }
            if (e.getKey() + e.getValue().length() > replica.offset()) {
                reaching = reaching == null ? e.getValue() : reaching.and(e.getValue());
            }
        }
        return reaching == null ? none : reaching;
    }

    void hold(Held range) {
        held.add(range);
    }

    /** The ranges held now, for reports of room. */
    List<Held> held() {
        return List.copyOf(held);
    }

    /** Takes out and returns the held ranges that only {@code holder}'s grants reach, for a put of its own. */
    List<Held> heldOnlyFor(String holder) {
        List<Held> own = new ArrayList<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held range = it.next();
            if (range.onlyFor(holder)) {
                own.add(range);
                it.remove();
            }
        }
        return own;
    }

    /** Forgets the grants that have expired, and takes out and returns the held ranges they freed. */
    List<Held> expire(long now) {
        for (Iterator<NavigableMap<Long, Grant>> it = grants.values().iterator(); it.hasNext(); ) {
            NavigableMap<Long, Grant> onNode = it.next();
            onNode.values().removeIf(g -> g.until() <= now);
            if (onNode.isEmpty()) {
                it.remove();
            }
        }
        List<Held> free = new ArrayList<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held range = it.next();
            if (range.until() <= now) {
                free.add(range);
                it.remove();
            }
        }
        return free;
    }

    /** Forgets a node's grants and held ranges together with its segment. */
    void forgetNode(String nodeId) {
        grants.remove(nodeId);
        held.removeIf(h -> h.replica().nodeId().equals(nodeId));
    }
}
