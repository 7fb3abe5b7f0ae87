package io.weightstore.weights;

import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.SliceMeta;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * How the copies of some objects stand now: slices with fewer copies on up nodes than their
 * object's replica count, and the master's copies under way for them, with their progress.
 *
 * @param state UNREADABLE when a slice has no copy on a node that is up (reads of it fail), else
 *     REPAIRING while the master copies any of these slices, else DEGRADED when a slice lacks copies, else OK
 * @param slices slices of the objects
 * @param slicesBelowTarget slices with fewer copies on nodes that are up than their object asks for
 *     (a node down within the master's repair delay counts against them: the copy cannot be read now)
 * @param slicesUnreadable slices with no copy on a node that is up
 * @param slicesToTrim slices of objects at a fixed count with more copies than it (and than their
 *     local copies), which the master is to drop: a count lowered, or a drain that has yet to drop its copy
 * @param copiesUnderWay copies the master has ordered for these objects, not yet committed
 * @param bytesToCopy bytes of those copies
 * @param bytesCopied bytes of them already written
 */
public record ReplicaHealth(ReplicationStatus.State state, int slices, int slicesBelowTarget, int slicesUnreadable, int slicesToTrim,
        int copiesUnderWay, long bytesToCopy, long bytesCopied) {

    /** The health of {@code objects}, given the nodes the master knows and the copies it has under way. */
    public static ReplicaHealth of(Collection<ObjectMeta> objects, Map<String, NodeStatus> nodes, List<CopyInFlight> copies) {
        Set<String> keys = objects.stream().map(ObjectMeta::key).collect(Collectors.toSet());
        List<CopyInFlight> ours = copies.stream().filter(c -> keys.contains(c.key())).toList();
        int slices = 0;
        int below = 0;
        int unreadable = 0;
        int toTrim = 0;
        for (ObjectMeta object : objects) {
            for (SliceMeta slice : object.slices()) {
                slices++;
                long up = slice.nodeIds().stream().filter(id -> nodes.containsKey(id) && nodes.get(id).up()).count();
                if (up < object.replicas()) {
                    below++;
                }
                if (up == 0) {
                    unreadable++;
                }
                if (!object.autoReplicas() && slice.nodeIds().size() > object.replicas() + object.localCopies().size()) {
                    toTrim++;
                }
            }
        }
        ReplicationStatus.State state = unreadable > 0 ? ReplicationStatus.State.UNREADABLE
                : !ours.isEmpty() ? ReplicationStatus.State.REPAIRING
                : below > 0 ? ReplicationStatus.State.DEGRADED : ReplicationStatus.State.OK;
        return new ReplicaHealth(state, slices, below, unreadable, toTrim, ours.size(),
                ours.stream().mapToLong(CopyInFlight::length).sum(), ours.stream().mapToLong(CopyInFlight::bytesDone).sum());
    }

    /** Whether the master has nothing left to do for these objects: every slice has its copies, and no more. */
    public boolean settled() {
        return state == ReplicationStatus.State.OK && slicesToTrim == 0;
    }

    /** One line for a person: {@code OK}, {@code DEGRADED: 3 of 12 slices lack copies}, {@code REPAIRING: 2 copies, 40% …}. */
    public String describe() {
        return switch (state) {
            case OK -> "OK (every slice has its copies)";
            case DEGRADED -> "DEGRADED: " + slicesBelowTarget + " of " + slices + " slices have fewer copies on up nodes than their"
                    + " count, and no copy is under way";
            case UNREADABLE -> "UNREADABLE: " + slicesUnreadable + " of " + slices + " slices have no copy on a node that is up,"
                    + " so reads of them fail" + (copiesUnderWay == 0 ? ""
                            : "; " + copiesUnderWay + (copiesUnderWay == 1 ? " copy" : " copies") + " under way");
            case REPAIRING -> "REPAIRING: " + copiesUnderWay + (copiesUnderWay == 1 ? " copy" : " copies") + " under way, "
                    + ByteSizes.format(bytesCopied) + " of " + ByteSizes.format(bytesToCopy) + " copied ("
                    + (bytesToCopy == 0 ? 0 : 100 * bytesCopied / bytesToCopy) + "%); " + slicesBelowTarget + " of " + slices
                    + " slices have fewer copies on up nodes than their count";
        };
    }
}
