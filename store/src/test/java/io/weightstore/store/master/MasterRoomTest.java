package io.weightstore.store.master;

import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyProgress;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.StoreException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the master holds of each node's pool when objects leave: a range is freed once, and only once nothing writes it. */
class MasterRoomTest extends ClockedMasterFixture {
    private ObjectMeta put(String key, long size, PutOptions options) throws StoreException {
        PutGrant put = master.putStart(key, size, options);
        return master.putEnd(put.putId(), put.object().slices().stream()
                .map(s -> BlockCrcs.of(new int[(int) Math.ceilDiv(s.length(), 64 << 10)])).toList());
    }

    private long used(String nodeId) {
        return master.status().nodes().stream().filter(n -> n.nodeId().equals(nodeId)).mapToLong(NodeStatus::used).sum();
    }

    private static boolean overlap(ReplicaRef a, long aLength, ReplicaRef b, long bLength) {
        return a.nodeId().equals(b.nodeId()) && a.offset() < b.offset() + bLength && b.offset() < a.offset() + aLength;
    }

    @Test
    void aKeyNamedTwiceInOneRemovalFreesItsRoomOnce() throws StoreException {
        master.registerNode(node("n1"));
        put("a", SLICE, PutOptions.defaults());
        put("b", SLICE, PutOptions.defaults());
        master.remove("a", false);

        int removed = master.removeAll(List.of("b", "b"), false, "", "");
        assertThat(used("n1")).isZero();
        assertThat(removed).as("objects removed").isEqualTo(1);

        // Freed twice, b's range would be free twice over: a longer range from the pool's start, and b's again inside it.
        ObjectMeta longer = put("c", 3 * SLICE / 2, PutOptions.defaults().withSliceSize(3 * SLICE / 2));
        ObjectMeta after = put("d", SLICE, PutOptions.defaults());
        assertThat(overlap(longer.slice(0).replicas().getFirst(), longer.size(), after.slice(0).replicas().getFirst(), after.size()))
                .as("%s and %s", longer.slice(0).replicas(), after.slice(0).replicas()).isFalse();
    }

    /** The copy on n2 of an object of two copies, which n2's scrubber found bad, and the rewrite in place n2 was then given. */
    private record Rewrite(ReplicaRef onN2, CopyTask task, NodeReport writing) {}

    private Rewrite aBadCopyBeingRewrittenInPlace() throws StoreException {
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
        ObjectMeta object = put("obj", SLICE, PutOptions.defaults().withReplicas(2));
        ReplicaRef onN2 = object.slice(0).replicas().stream().filter(r -> r.nodeId().equals("n2")).findFirst().orElseThrow();
        master.heartbeat(new NodeReport("n2", NodeLoad.none(), List.of(),
                List.of(new ScrubFinding("obj", object.createdAt(), 0, onN2.offset(), "block 0 does not match")), 0));
        master.reapNow();
        CopyTask task = master.heartbeat(NodeReport.alive("n2")).copies().getFirst();
        assertThat(task.targetOffset()).as("the bad copy is rewritten where it is").isEqualTo(onN2.offset());
        NodeReport writing = new NodeReport("n2", NodeLoad.none(), List.of(new CopyProgress(task.taskId(), SLICE / 2)), List.of(), 0);
        master.heartbeat(writing);
        return new Rewrite(onN2, task, writing);
    }

    /** Removes the object while n2 still writes its rewrite: nothing goes where it writes until it says it stopped. */
    private void removeWhileN2StillWrites(Rewrite rewrite) throws StoreException {
        master.remove("obj", false);
        master.heartbeat(rewrite.writing());
        ObjectMeta next = put("next", SLICE, PutOptions.defaults().withReplicas(2));
        assertThat(next.slice(0).replicas()).as("placed while node n2 still writes at offset %d", rewrite.onN2().offset())
                .noneMatch(r -> overlap(r, SLICE, rewrite.onN2(), SLICE));

        master.heartbeat(NodeReport.alive("n2"));
        assertThat(used("n2")).as("the rewritten range is freed once the node stopped").isEqualTo(SLICE);
    }

    @Test
    void aRangeANodeRewritesInPlaceStaysTakenAfterItsObjectLeavesUntilTheNodeStopsWritingIt() throws StoreException {
        removeWhileN2StillWrites(aBadCopyBeingRewrittenInPlace());
    }

    @Test
    void aRangeARewriteGivenUpForNoProgressStaysTakenAfterItsObjectLeavesUntilTheNodeStopsWritingIt() throws StoreException {
        Rewrite rewrite = aBadCopyBeingRewrittenInPlace();
        // Past the stall timeout with no progress: the master gives the rewrite up, while the node still writes it.
        for (int second = 0; second <= ReplicationConfig.defaults().stallTimeout().toSeconds(); second++) {
            now.addAndGet(1_000);
            master.heartbeat(NodeReport.alive("n1"));
            assertThat(master.heartbeat(rewrite.writing()).copies()).as("no second rewrite into the range the first still writes")
                    .allMatch(task -> task.taskId().equals(rewrite.task().taskId()));
            master.reapNow();
        }
        assertThat(master.status().replication().copies()).as("given up").isEmpty();
        removeWhileN2StillWrites(rewrite);
    }
}
