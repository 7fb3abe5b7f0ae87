package io.weightstore.store.master;

import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.ReplicaRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Copies of slices handed out and not yet committed or given up: those nodes make on the master's
 * orders, and those clients make ({@code verify --repair}). Kept in memory only: nothing persisted
 * refers to a pending copy's room, so a master that restarts rebuilds its segments from the objects
 * and the room is free again by itself; safely so, as a node stops every copy it makes before it
 * registers with a master that does not know it. At most one copy per slice is pending, so two
 * copies never race to replace the same replica. A node's copy that was given up keeps its room until the node
 * says it stopped writing there, so the room is not handed to a put while its old copy still lands
 * in it. Not thread-safe; the master serialises access.
 */
final class CopyTable {
    /**
     * A copy of slice {@code slice} of {@code key} (as sealed at {@code version}) into {@code target}.
     *
     * @param replaces the node whose replica this one takes the place of at commit (the target's own
     *     when the copy is rewritten in place), or empty to add a replica
     * @param source the node a node's copy reads from; empty for a client's repair
     * @param byNode true when a node makes the copy on the master's orders, false for a client's repair
     */
    record Copy(String id, String key, Instant version, int slice, long length, ReplicaRef target, String replaces, String source,
            CopyInFlight.Reason reason, boolean byNode) {
        boolean inPlace() {
            return target.nodeId().equals(replaces);
        }

        /**
         * The copy once its object has left: the range it rewrites in place is no object's any more, so it
         * is the copy's own, freed when the copy ends as the room of any other copy is.
         */
        Copy ownsTarget() {
            return new Copy(id, key, version, slice, length, target, "", source, reason, byNode);
        }
    }

    /** A pending copy, until when it may go without progress, and how far it got. */
    private record Tracked(Copy copy, long deadlineMillis, long bytesDone) {}

    private final Map<String, Tracked> pending = new LinkedHashMap<>();
    private final Map<String, Copy> stopping = new LinkedHashMap<>();

    void add(Copy copy, long deadlineMillis) {
        pending.put(copy.id(), new Tracked(copy, deadlineMillis, 0));
    }

    Optional<Copy> get(String id) {
        return Optional.ofNullable(pending.get(id)).map(Tracked::copy);
    }

    Optional<Copy> remove(String id) {
        return Optional.ofNullable(pending.remove(id)).map(Tracked::copy);
    }

    /** A node said how far a copy got; the copy may then go without progress until {@code deadlineMillis}. */
    void progress(String id, long bytesDone, long deadlineMillis) {
        Tracked tracked = pending.get(id);
        if (tracked != null && bytesDone > tracked.bytesDone()) {
            pending.put(id, new Tracked(tracked.copy(), deadlineMillis, bytesDone));
        }
    }

    Optional<Copy> pendingFor(String key, int slice) {
        return pending.values().stream().map(Tracked::copy).filter(c -> c.key().equals(key) && c.slice() == slice).findFirst();
    }

    /** Copies written into the node's pool now. */
    int targeting(String nodeId) {
        return (int) pending.values().stream().filter(t -> t.copy().target().nodeId().equals(nodeId)).count();
    }

    /** Node copies read from the node now. */
    int sourcing(String nodeId) {
        return (int) pending.values().stream().filter(t -> t.copy().source().equals(nodeId)).count();
    }

    /** The copies the node is to make now, in the order they were handed out. */
    List<Copy> ordersFor(String nodeId) {
        return pending.values().stream().map(Tracked::copy).filter(c -> c.byNode() && c.target().nodeId().equals(nodeId)).toList();
    }

    List<Copy> expired(long nowMillis) {
        return pending.values().stream().filter(t -> t.deadlineMillis() < nowMillis).map(Tracked::copy).toList();
    }

    /** Copies that write to the node, read from it, or replace its replica. */
    List<Copy> involving(String nodeId) {
        return pending.values().stream().map(Tracked::copy).filter(c -> c.target().nodeId().equals(nodeId)
                || c.source().equals(nodeId) || c.replaces().equals(nodeId)).toList();
    }

    List<Copy> ofKey(String key) {
        return pending.values().stream().map(Tracked::copy).filter(c -> c.key().equals(key)).toList();
    }

    List<CopyInFlight> inFlight() {
        return pending.values().stream().map(t -> new CopyInFlight(t.copy().key(), t.copy().slice(), t.copy().source(),
                t.copy().target().nodeId(), t.copy().reason(), t.copy().length(), t.bytesDone())).toList();
    }

    /** A node's copy given up while the node may still be writing it: its room waits for {@link #stoppedOn}. */
    void stopping(Copy copy) {
        stopping.put(copy.id(), copy);
    }

    /**
     * The given-up copies of {@code key} that nodes may still be writing in place into a range {@code leaving}
     * accepts, which leaves the object: each owns its range from now on (see {@link Copy#ownsTarget}), freed
     * when its node stops. Returns those ranges, which the caller must not free.
     */
    Set<ReplicaRef> ownRangesStillWritten(String key, Predicate<ReplicaRef> leaving) {
        Set<ReplicaRef> owned = new HashSet<>();
        stopping.replaceAll((id, copy) -> {
            if (copy.key().equals(key) && copy.inPlace() && leaving.test(copy.target())) {
                owned.add(copy.target());
                return copy.ownsTarget();
            }
            return copy;
        });
        return owned;
    }

    /** Whether a given-up copy may still be writing in place into {@code range}. */
    boolean stillWrittenInPlace(ReplicaRef range) {
        return stopping.values().stream().anyMatch(copy -> copy.inPlace() && copy.target().equals(range));
    }

    /**
     * The given-up copies of node {@code nodeId} that it no longer makes ({@code running} lists the
     * ones it still makes; all of them when the node restarted or is gone); they leave the table.
     */
    List<Copy> stoppedOn(String nodeId, Set<String> running) {
        List<Copy> stopped = new ArrayList<>();
        stopping.values().removeIf(copy -> {
            boolean done = copy.target().nodeId().equals(nodeId) && !running.contains(copy.id());
            if (done) {
                stopped.add(copy);
            }
            return done;
        });
        return stopped;
    }
}
