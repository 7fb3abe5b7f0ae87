package io.weightstore.store.master;

import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Copies known bad stay known across a restart of the master, so trimming never keeps one in place of a good copy. */
class MasterBadCopyTest extends ClockedMasterFixture {
    private ObjectMeta put(String key, int replicas) throws StoreException {
        PutGrant put = master.putStart(key, SLICE, PutOptions.defaults().withReplicas(replicas).withReplace(true));
        List<BlockCrcs> sums = new ArrayList<>();
        put.object().slices().forEach(s -> sums.add(BlockCrcs.of(new int[16])));
        return master.putEnd(put.putId(), sums);
    }

    /** Reports {@code object}'s copy on the node other than {@code kept} bad, as its scrubber would; returns that copy. */
    private ReplicaRef reportBad(ObjectMeta object, String kept) throws StoreException {
        ReplicaRef bad = object.slice(0).replicas().stream().filter(r -> !r.nodeId().equals(kept)).findFirst().orElseThrow();
        master.heartbeat(new NodeReport(bad.nodeId(), NodeLoad.none(), List.of(),
                List.of(new ScrubFinding(object.key(), object.createdAt(), 0, bad.offset(), "block 0 does not match")), 0));
        return bad;
    }

    /** Opens the master again over its store, and its nodes register again, as after a restart of it. */
    private void reopen() throws StoreException {
        master = open();
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
    }

    private void restart() throws StoreException {
        master.close();
        reopen();
    }

    /** The bad copies the store records, read while the master is stopped. */
    private List<BadCopy> recorded() throws StoreException {
        master.close();
        try (MetadataStore store = RocksMetadataStore.open(dir)) {
            return store.badCopies();
        } finally {
            reopen();
        }
    }

    @Test
    void aCountLoweredAfterARestartKeepsTheGoodCopyNotTheOneReportedBad() throws StoreException {
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
        ObjectMeta object = put("obj", 2);
        // One node fuller than the other: a trim that knows nothing of the bad copy drops the copy on the fuller one.
        String fuller = put("filler", 1).slice(0).nodeIds().getFirst();
        ReplicaRef bad = reportBad(object, fuller);

        restart();
        master.setReplicas(List.of("obj"), 1, false);
        master.reapNow();

        assertThat(master.stat("obj").slice(0).nodeIds()).as("the copy on node %s was reported bad", bad.nodeId())
                .containsExactly(fuller);
        assertThat(recorded()).as("the bad copy's record, dropped with it").isEmpty();
    }

    /** A copy of an object of two, reported bad, and the rewrite in place its node was then given. */
    private record Rewrite(ReplicaRef bad, CopyTask task) {}

    private Rewrite aBadCopyRewrittenInPlace() throws StoreException {
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
        ReplicaRef bad = reportBad(put("obj", 2), "n1");
        master.reapNow();
        CopyTask task = master.heartbeat(NodeReport.alive(bad.nodeId())).copies().getFirst();
        assertThat(task.targetOffset()).isEqualTo(bad.offset());
        return new Rewrite(bad, task);
    }

    @Test
    void aBadCopyOnADrainingNodeIsCopiedToAnotherNodeInItsPlace() throws StoreException {
        for (String node : List.of("n1", "n2", "n3")) {
            master.registerNode(node(node));
        }
        ObjectMeta object = put("obj", 2);
        String kept = object.slice(0).nodeIds().getFirst();
        ReplicaRef bad = reportBad(object, kept);
        master.drainNode(bad.nodeId(), false);
        master.reapNow();
        String third = Stream.of("n1", "n2", "n3").filter(n -> !object.slice(0).nodeIds().contains(n)).findFirst().orElseThrow();

        List<CopyTask> copies = master.heartbeat(NodeReport.alive(third)).copies();
        assertThat(copies).as("copies ordered to the node that holds none").singleElement()
                .satisfies(task -> assertThat(task.key()).isEqualTo("obj"));
        master.finishCopy(third, copies.getFirst().taskId(), new CopyOutcome.Done());

        assertThat(master.stat("obj").slice(0).nodeIds()).as("the draining node's bad copy replaced")
                .containsExactlyInAnyOrder(kept, third);
        assertThat(master.status().replication().badCopies()).isZero();
    }

    @Test
    void aCopyRewrittenInPlaceCountsGoodAfterARestart() throws StoreException {
        Rewrite rewrite = aBadCopyRewrittenInPlace();
        master.finishCopy(rewrite.bad().nodeId(), rewrite.task().taskId(), new CopyOutcome.Done());

        restart();
        master.reapNow();
        assertThat(master.status().replication().badCopies()).isZero();
        assertThat(recorded()).isEmpty();
    }

    @Test
    void aNodesRewriteNamedAsAClientsRepairIsRefusedAndStaysTheNodesToFinish() throws StoreException {
        Rewrite rewrite = aBadCopyRewrittenInPlace();
        assertThatThrownBy(() -> master.repairEnd(rewrite.task().taskId())).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.code()).isEqualTo(StoreException.Code.NOT_FOUND));
        master.finishCopy(rewrite.bad().nodeId(), rewrite.task().taskId(), new CopyOutcome.Done());
        master.reapNow();
        assertThat(master.status().replication().badCopies()).isZero();
    }

    @Test
    void theRecordsOfAnObjectsBadCopiesLeaveWithIt() throws StoreException {
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
        reportBad(put("removed", 2), "n1");
        reportBad(put("replaced", 2), "n1");
        assertThat(recorded()).extracting(BadCopy::key).containsExactlyInAnyOrder("removed", "replaced");

        master.remove("removed", false);
        put("replaced", 2);
        assertThat(recorded()).isEmpty();
    }

    @Test
    void aRecordThatMarksNoCopyOfItsObjectIsDroppedWhenTheMasterRecovers() throws StoreException {
        master.registerNode(node("n1"));
        ObjectMeta object = put("obj", 1);
        ReplicaRef copy = object.slice(0).replicas().getFirst();
        master.close();
        try (MetadataStore store = RocksMetadataStore.open(dir)) {
            // Left by changes cut short: one of a version since replaced, one of an object since removed.
            store.apply(new MetadataBatch().putBadCopy(new BadCopy("obj", object.createdAt().minusMillis(1), 0, copy))
                    .putBadCopy(new BadCopy("gone", object.createdAt(), 0, copy)));
        }
        reopen();
        assertThat(master.status().replication().badCopies()).isZero();
        assertThat(recorded()).isEmpty();
    }
}
