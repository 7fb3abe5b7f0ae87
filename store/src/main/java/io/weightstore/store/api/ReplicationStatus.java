package io.weightstore.store.api;

import java.time.Duration;
import java.util.List;

/**
 * How the replicas stand, as of the master's last look at every object: slices with fewer good
 * copies than their object asks for, slices with no good copy at all, copies known bad, and the
 * copies under way to put that right.
 *
 * @param slicesBelowTarget slices with fewer good copies than their object's replica count (a copy
 *     on a node that is down counts as good until the repair delay has passed)
 * @param slicesWaiting slices with a copy on a node that is down, not yet for the repair delay: the
 *     copy serves nothing now, and is made again elsewhere if the node stays down
 * @param slicesWithoutGoodCopy slices none of whose copies can serve them
 * @param badCopies copies whose bytes a scrubber or a copy found bad, not yet rewritten
 * @param repairAfter how long a node may stay down before its copies are made again elsewhere
 */
public record ReplicationStatus(int slicesBelowTarget, int slicesWaiting, int slicesWithoutGoodCopy, int badCopies, List<CopyInFlight> copies,
        Duration repairAfter) {
    public ReplicationStatus {
        copies = List.copyOf(copies);
    }

    /** What a master reports before its first look, or one that keeps no replicas (the embedded store). */
    public static ReplicationStatus none(Duration repairAfter) {
        return new ReplicationStatus(0, 0, 0, 0, List.of(), repairAfter);
    }

    /**
     * OK: every slice has its copies, each on a node that is up; REPAIRING: copies are under way;
     * DEGRADED: some are missing, bad, or on a node that is down, and none is under way; UNREADABLE:
     * some slice has no copy that can serve it now, so reads of it fail, whatever else is under way.
     */
    public enum State {
        OK,
        REPAIRING,
        DEGRADED,
        UNREADABLE
    }

    public State state() {
        if (slicesWithoutGoodCopy > 0) {
            return State.UNREADABLE;
        }
        if (!copies.isEmpty()) {
            return State.REPAIRING;
        }
        return slicesBelowTarget + slicesWaiting + slicesWithoutGoodCopy + badCopies == 0 ? State.OK : State.DEGRADED;
    }

    public long bytesToCopy() {
        return copies.stream().mapToLong(CopyInFlight::length).sum();
    }

    public long bytesCopied() {
        return copies.stream().mapToLong(CopyInFlight::bytesDone).sum();
    }
}
