package io.weightstore.store.master;

import io.weightstore.store.api.ReplicaRef;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Ranges of copies that left an object's metadata (moved, trimmed, dropped) but may still be read:
 * a reader that opened the object before keeps the placement it was given for as long as it renews
 * its lease. A range is freed for new objects only once every lease on its object that is as old as
 * the change has ended, so no such reader can find another object's bytes where its copy was (its
 * checksums would catch that, but it would have to fail over). In memory only: a master that
 * restarts rebuilds its segments from the objects, and these ranges are free again at once.
 * Not thread-safe; the master serialises access.
 */
final class RetiredRanges {
    /** A range of {@code length} bytes where {@code replica} was, kept while leases up to {@code leaseMark} on {@code key} live. */
    record Retired(String key, long leaseMark, ReplicaRef replica, long length) {}

    private final List<Retired> retired = new ArrayList<>();

    void retire(String key, long leaseMark, ReplicaRef replica, long length) {
        retired.add(new Retired(key, leaseMark, replica, length));
    }

    /** Takes out and returns the ranges no lease holds any more. */
    List<Retired> releasable(LeaseTable leases, long now) {
        List<Retired> free = new ArrayList<>();
        for (Iterator<Retired> it = retired.iterator(); it.hasNext(); ) {
            Retired range = it.next();
            if (!leases.heldSince(range.key(), range.leaseMark(), now)) {
                free.add(range);
                it.remove();
            }
        }
        return free;
    }

    /** Forgets the ranges on a node that is forgotten together with its segment. */
    void forgetNode(String nodeId) {
        retired.removeIf(r -> r.replica().nodeId().equals(nodeId));
    }
}
