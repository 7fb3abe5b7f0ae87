package io.weightstore.store.master;

import static io.weightstore.store.api.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.api.StoreException.Code.INVALID_ARGUMENT;
import static io.weightstore.store.api.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.assertCode;
import static io.weightstore.store.master.ClockedMasters.config;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The master's side of repairs: room for a new copy of a slice, in place on a node that is up or
 * elsewhere for one that is not, committed into the metadata only by repairEnd and freed by an
 * abort, an expiry or a restart. Driven with a clock the test moves.
 */
class MasterRepairTest extends ClockedMasterFixture {
    @BeforeEach
    void registerNodes() throws StoreException {
        master.registerNode(node("n1"));
        master.registerNode(node("n2"));
    }

    /** A one-slice object on n1 and n2; n3 joins after it, so it holds no copy. */
    private ObjectMeta twoCopiesThenAThirdNode() throws StoreException {
        PutGrant put = master.putStart("obj", SLICE, PutOptions.defaults().withReplicas(2));
        List<BlockCrcs> sums = new ArrayList<>();
        put.object().slices().forEach(s -> sums.add(BlockCrcs.of(new int[16])));
        ObjectMeta object = master.putEnd(put.putId(), sums);
        master.registerNode(node("n3"));
        return object;
    }

    private void onlyUp(String... ids) throws StoreException {
        now.addAndGet(config().nodeDeadline().toMillis() + 1);
        for (String id : ids) {
            master.heartbeat(NodeReport.alive(id));
        }
    }

    private long used(String nodeId) throws StoreException {
        return master.status().nodes().stream().filter(n -> n.nodeId().equals(nodeId)).mapToLong(NodeStatus::used).sum();
    }

    @Test
    void theReplicasStatusCountsACopyOnANodeAsWaitingInTheTickThatFindsTheNodeDown() throws StoreException {
        twoCopiesThenAThirdNode();
        master.reapNow();
        assertThat(master.status().replication().state()).isEqualTo(ReplicationStatus.State.OK);
        // n2 misses its heartbeats past its deadline while the others keep theirs, all within the periodic full look's
        // interval: only n2 going down can make this tick look.
        long step = config().nodeDeadline().toMillis() / 3;
        long lookedAt = now.get();
        for (long waited = 0; waited <= config().nodeDeadline().toMillis(); waited += step) {
            now.addAndGet(step);
            master.heartbeat(NodeReport.alive("n1"));
            master.heartbeat(NodeReport.alive("n3"));
        }
        assertThat(now.get() - lookedAt).isLessThan(Replication.FULL_PASS_MILLIS);
        master.reapNow();
        assertThat(master.status().nodes()).filteredOn(n -> n.nodeId().equals("n2")).singleElement()
                .satisfies(n -> assertThat(n.up()).isFalse());
        ReplicationStatus replication = master.status().replication();
        assertThat(replication.slicesWaiting()).as(replication.toString()).isEqualTo(1);
        assertThat(replication.state()).isEqualTo(ReplicationStatus.State.DEGRADED);
    }

    @Test
    void aCopyOnANodeThatIsDownMovesToAnotherNodeOnlyWhenCommitted() throws StoreException {
        ObjectMeta object = twoCopiesThenAThirdNode();
        onlyUp("n1", "n3");
        RepairGrant grant = master.repairStart("obj", object.createdAt(), 0, "n2");
        assertThat(grant.target().nodeId()).isEqualTo("n3");
        assertThat(grant.inPlace()).isFalse();
        assertThat(used("n3")).as("room is taken at once").isEqualTo(SLICE);
        assertThat(master.stat("obj").slice(0).nodeIds()).as("but readers still see the old placement").containsExactly("n1", "n2");

        ObjectMeta repaired = master.repairEnd(grant.repairId());
        assertThat(repaired.slice(0).nodeIds()).containsExactly("n1", "n3");
        assertThat(master.stat("obj").slice(0).nodeIds()).containsExactly("n1", "n3");
        assertThat(repaired.createdAt()).as("the same version: open readers keep reading it").isEqualTo(object.createdAt());
        assertThat(used("n2")).as("the lost copy's room is given back").isZero();
        assertCode(() -> master.repairEnd(grant.repairId()), NOT_FOUND, grant.repairId());
    }

    @Test
    void aBadCopyOnANodeThatIsUpIsRewrittenInPlace() throws StoreException {
        ObjectMeta object = twoCopiesThenAThirdNode();
        RepairGrant grant = master.repairStart("obj", object.createdAt(), 0, "n1");
        assertThat(grant.inPlace()).isTrue();
        assertThat(grant.target()).isEqualTo(object.slice(0).replicas().getFirst());
        assertThat(used("n3")).isZero();
        assertThat(master.repairEnd(grant.repairId()).slice(0).replicas()).isEqualTo(object.slice(0).replicas());
    }

    @Test
    void aMissingCopyIsAddedOnANodeWithoutOne() throws StoreException {
        ObjectMeta object = twoCopiesThenAThirdNode();
        assertCode(() -> master.repairStart("obj", object.createdAt(), 0, ""), FAILED_PRECONDITION, "already has 2 replicas");
        onlyUp("n1", "n3");
        master.forgetNode("n2", false);
        RepairGrant grant = master.repairStart("obj", object.createdAt(), 0, "");
        assertThat(grant.target().nodeId()).isEqualTo("n3");
        assertThat(master.repairEnd(grant.repairId()).slice(0).nodeIds()).containsExactly("n1", "n3");
    }

    @Test
    void anAbortAnExpiryOrARestartFreesTheRoomAndLeavesTheMetadata() throws StoreException {
        ObjectMeta object = twoCopiesThenAThirdNode();
        onlyUp("n1", "n3");
        RepairGrant aborted = master.repairStart("obj", object.createdAt(), 0, "n2");
        master.repairAbort(aborted.repairId());
        assertThat(used("n3")).isZero();
        assertCode(() -> master.repairEnd(aborted.repairId()), NOT_FOUND);

        RepairGrant expired = master.repairStart("obj", object.createdAt(), 0, "n2");
        now.addAndGet(config().putTimeout().toMillis() + 1);
        master.heartbeat(NodeReport.alive("n1"));
        master.heartbeat(NodeReport.alive("n3"));
        master.reapNow();
        assertThat(used("n3")).isZero();
        assertCode(() -> master.repairEnd(expired.repairId()), NOT_FOUND);

        master.repairStart("obj", object.createdAt(), 0, "n2");
        master.close();
        master = open();
        assertThat(used("n3")).as("a pending repair is not persisted: nothing refers to its room").isZero();
        assertThat(master.stat("obj").slice(0).nodeIds()).containsExactly("n1", "n2");
    }

    @Test
    void aReplacedObjectABusySliceOrAWrongSliceIsRefused() throws StoreException {
        ObjectMeta object = twoCopiesThenAThirdNode();
        onlyUp("n1", "n3");
        assertCode(() -> master.repairStart("obj", object.createdAt(), 1, "n2"), INVALID_ARGUMENT, "slice=1");
        assertCode(() -> master.repairStart("obj", object.createdAt(), 0, "n3"), NOT_FOUND, "no replica on node n3");
        assertCode(() -> master.repairStart("obj", object.createdAt().minusMillis(1), 0, "n2"), FAILED_PRECONDITION, "replaced");
        RepairGrant grant = master.repairStart("obj", object.createdAt(), 0, "n2");
        assertCode(() -> master.repairStart("obj", object.createdAt(), 0, "n1"), FAILED_PRECONDITION, "being repaired",
                grant.repairId());

        now.addAndGet(1);
        PutGrant replacement = master.putStart("obj", SLICE, PutOptions.defaults().withReplace(true));
        master.putEnd(replacement.putId(), List.of(BlockCrcs.of(new int[16])));
        long usedBefore = master.status().used();
        assertCode(() -> master.repairEnd(grant.repairId()), FAILED_PRECONDITION, "replaced");
        assertThat(master.status().used()).as("the refused commit frees its room").isEqualTo(usedBefore - SLICE);
    }
}
