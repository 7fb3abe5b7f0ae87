package io.weightstore.store.master;

import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.ReplicaRef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What to do about one slice's replicas: which to drop from the metadata now, and which one copy to
 * make next (one at a time per slice, so two copies never race for the same place). A pure function
 * of the replicas' states and the slice's target, so every rule is tested without a cluster.
 *
 * <p>The rules, in order: a copy nobody can read (lost, on a node being drained, or bad) is dropped
 * once the slice has its target of good copies without it, one of them on a node that is up; copies beyond the target are trimmed,
 * those on nodes that are down first, then those on the fullest nodes, never one a node keeps for
 * its host's engines, and never below one good copy. Then a bad copy is rewritten in place; a slice
 * short of its target gets a copy in place of a lost or leaving one, else an added one; and a node
 * that keeps local copies gets its own.
 */
final class ReplicaPlanner {
    private ReplicaPlanner() {}

    /** How a copy stands. */
    enum State {
        /** On a node that is up, with no known fault. */
        GOOD,
        /** On a node that is down, for less than the repair delay: it counts, but serves nothing meanwhile. */
        WAITING,
        /** On a node that is up, with bytes that do not match their checksums. */
        BAD,
        /** On a node down past the repair delay, unknown, or whose pool is gone. */
        LOST,
        /** On a node being drained, which is up: it still serves, and is read to copy it elsewhere. */
        LEAVING
    }

    /** One replica of the slice, its state, whether its node keeps it for its host, and how full its node is. */
    record Held(ReplicaRef replica, State state, boolean local, long nodeUsed) {
        boolean counts() {
            return state == State.GOOD || state == State.WAITING;
        }

        boolean readable() {
            return state == State.GOOD || state == State.LEAVING;
        }
    }

    /** The one copy to make next. */
    sealed interface Want {
        /** Rewrite a bad copy where it is. */
        record Rewrite(ReplicaRef bad) implements Want {}

        /** A new copy on another node, which takes the place of {@code from} when it is committed. */
        record Move(ReplicaRef from, CopyInFlight.Reason reason) implements Want {}

        /** One more copy, on any node that has none. */
        record Add() implements Want {}

        /** One more copy, on {@code nodeId}, which keeps one for its host's engines. */
        record AddOn(String nodeId) implements Want {}
    }

    /**
     * @param drops replicas to take out of the metadata now
     * @param belowTarget fewer copies count than the target
     * @param waiting a copy is on a node that is down, not yet for the repair delay: it counts, but serves nothing now
     * @param unreadable no copy can serve the slice now
     * @param bad copies known bad
     */
    record Plan(List<ReplicaRef> drops, Optional<Want> copy, boolean belowTarget, boolean waiting, boolean unreadable, int bad) {}

    /**
     * @param replicas the slice's replicas as the metadata lists them
     * @param target copies the slice should have, besides the local ones
     * @param localNodes nodes that should keep a copy for their host and can take one now
     */
    static Plan plan(List<Held> replicas, int target, List<String> localNodes) {
        int counting = (int) replicas.stream().filter(Held::counts).count();
        List<Held> kept = new ArrayList<>(replicas);
        List<ReplicaRef> drops = new ArrayList<>();
        // Copies on nodes that are down count toward the target but serve nothing, and may never come back: a copy that
        // serves (drained) or may be rewritten (bad) goes only while a good one stays, or the slice could be left unreadable.
        if (counting >= target && replicas.stream().anyMatch(h -> h.state() == State.GOOD)) {
            for (Held held : replicas) {
                boolean useless = held.state() == State.LOST || held.state() == State.LEAVING || (held.state() == State.BAD && !held.local());
                if (useless) {
                    drops.add(held.replica());
                    kept.remove(held);
                }
            }
        }
        List<Held> trimmable = kept.stream().filter(h -> h.counts() && !h.local())
                .sorted(Comparator.comparing((Held h) -> h.state() != State.WAITING).thenComparing(Held::nodeUsed, Comparator.reverseOrder()))
                .toList();
        for (int excess = trimmable.size() - target, i = 0; excess > 0; excess--, i++) {
            drops.add(trimmable.get(i).replica());
            kept.remove(trimmable.get(i));
            counting--;
        }
        int bad = (int) replicas.stream().filter(h -> h.state() == State.BAD).count();
        boolean unreadable = replicas.stream().noneMatch(Held::readable);
        boolean waiting = kept.stream().anyMatch(h -> h.state() == State.WAITING);
        return new Plan(drops, want(kept, counting, target, localNodes), counting < target, waiting, unreadable, bad);
    }

    private static Optional<Want> want(List<Held> kept, int counting, int target, List<String> localNodes) {
        Optional<Held> bad = kept.stream().filter(h -> h.state() == State.BAD).findFirst();
        if (bad.isPresent()) {
            return Optional.of(new Want.Rewrite(bad.get().replica()));
        }
        if (counting < target) {
            Optional<Held> gone = kept.stream().filter(h -> h.state() == State.LOST).findFirst()
                    .or(() -> kept.stream().filter(h -> h.state() == State.LEAVING).findFirst());
            return Optional.of(gone.<Want>map(h -> new Want.Move(h.replica(), h.state() == State.LOST ? CopyInFlight.Reason.LOST
                    : CopyInFlight.Reason.DRAIN)).orElseGet(Want.Add::new));
        }
        for (String node : localNodes) {
            if (kept.stream().noneMatch(h -> h.replica().nodeId().equals(node))) {
                return Optional.of(new Want.AddOn(node));
            }
        }
        return Optional.empty();
    }
}
