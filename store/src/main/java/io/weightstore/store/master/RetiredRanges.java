package io.weightstore.store.master;

import io.weightstore.store.api.RetiredRange;
import java.util.ArrayList;
import java.util.List;

/**
 * Ranges of copies that left an object's metadata (moved, trimmed, dropped) but may still be read:
 * a reader that opened the object before keeps the placement it was given for as long as it renews
 * its lease, and a reader on the node's host keeps views of the pool over it. A range is freed for
 * new objects only once every lease on its object that is as old as the change has ended, so no
 * such reader can find another object's bytes where its copy was. Each range is recorded with the
 * metadata ({@link MetadataBatch#putRetired}), since leases are too: a master that restarts, or takes
 * over, holds them as the one before did. Not thread-safe; the master serialises access.
 */
final class RetiredRanges {
    private final List<RetiredRange> retired = new ArrayList<>();

    void retire(RetiredRange range) {
        retired.add(range);
    }

    /** The ranges no lease holds any more; they stay here until {@link #freed}. */
    List<RetiredRange> releasable(LeaseTable leases, long now) {
        return retired.stream().filter(r -> !leases.heldSince(r.key(), r.leaseMark(), now)).toList();
    }

    void freed(List<RetiredRange> ranges) {
        retired.removeAll(ranges);
    }

    /** The ranges on a node, which are forgotten together with its segment. */
    List<RetiredRange> on(String nodeId) {
        return retired.stream().filter(r -> r.replica().nodeId().equals(nodeId)).toList();
    }
}
