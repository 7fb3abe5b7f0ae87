package io.weightstore.store.master;

import static io.weightstore.store.api.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.api.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.master.ClockedMasters.NODE;
import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.assertCode;
import static io.weightstore.store.master.ClockedMasters.config;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.StoreException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Forgetting a node that is gone for good: what is refused, and what goes with it. */
class MasterForgetNodeTest extends ClockedMasterFixture {
    @BeforeEach
    void registerNodes() throws StoreException {
        for (String id : new String[] {"n1", "n2", "n3"}) {
            master.registerNode(node(id));
        }
    }

    private ObjectMeta put(String key, long size, int replicas) throws StoreException {
        PutGrant put = master.putStart(key, size, PutOptions.defaults().withReplicas(replicas));
        List<BlockCrcs> sums = new ArrayList<>();
        put.object().slices().forEach(s -> sums.add(BlockCrcs.of(new int[(int) Math.ceilDiv(s.length(), 64 << 10)])));
        return master.putEnd(put.putId(), sums);
    }

    /** Every node but the {@code gone} keeps heartbeating past the deadline. */
    private void lose(String... gone) throws StoreException {
        now.addAndGet(config().nodeDeadline().toMillis() + 1);
        for (String id : new String[] {"n1", "n2", "n3"}) {
            if (!List.of(gone).contains(id)) {
                master.heartbeat(NodeReport.alive(id));
            }
        }
    }

    @Test
    void aForgottenNodeLeavesEveryObjectStatusAndRestart() throws StoreException {
        ObjectMeta object = put("two", 6 * SLICE, 2);
        PutGrant inProgress = master.putStart("pending", 6 * SLICE, PutOptions.defaults().withReplicas(2));
        lose("n2");
        NodeForgotten forgotten = master.forgetNode("n2", false);
        long held = object.slices().stream().filter(s -> s.nodeIds().contains("n2")).count();
        assertThat(forgotten).isEqualTo(new NodeForgotten("n2", 1, (int) held, 1));
        assertThat(master.stat("two").slices()).allSatisfy(s -> assertThat(s.nodeIds()).doesNotContain("n2").isNotEmpty());
        assertThat(master.stat("two").createdAt()).isEqualTo(object.createdAt());
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId).containsExactly("n1", "n3");
        assertThat(master.status().pendingPuts()).as("a put with a copy on it could never be sealed").isZero();
        assertCode(() -> master.putEnd(inProgress.putId(), List.of()), NOT_FOUND);
        assertThat(master.heartbeat(NodeReport.alive("n2")).known()).as("it must register again, as a new node").isFalse();

        master.close();
        master = open();
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId).containsExactly("n1", "n3");
        assertThat(master.stat("two").slices()).allSatisfy(s -> assertThat(s.nodeIds()).doesNotContain("n2"));
        assertCode(() -> master.forgetNode("n2", false), NOT_FOUND, "no node n2");
    }

    @Test
    void aNodeHoldingTheOnlyCopyOfASliceIsNotForgottenEvenByForce() throws StoreException {
        put("safe", 4 * SLICE, 2);
        ObjectMeta single = put("single", 6 * SLICE, 1);
        int onN1 = (int) single.slices().stream().filter(s -> s.nodeIds().contains("n1")).count();
        int first = single.slices().indexOf(single.slices().stream().filter(s -> s.nodeIds().contains("n1")).findFirst().orElseThrow());
        lose("n1");
        assertCode(() -> master.forgetNode("n1", true), FAILED_PRECONDITION, "node n1 holds the only copy of slice " + first
                + " of single", onN1 > 1 ? "and of " + (onN1 - 1) + " more slices" : "");
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId).contains("n1");
        master.remove("single", false);
        master.forgetNode("n1", false);
    }

    @Test
    void aNodeIsNotForgottenWhileTheOtherCopyOfASliceIsOnALostPoolUnlessByForce() throws StoreException {
        List<String> holders = put("obj", SLICE, 2).slice(0).nodeIds();
        String gone = holders.get(0);
        String other = holders.get(1);
        lose(gone, other);
        NodeInfo newPool = new NodeInfo(other, new Endpoint("h", 1), "/new", UUID.randomUUID(), NODE);
        assertCode(() -> master.registerNode(newPool), StoreException.Code.INVALID_ARGUMENT, "the old pool's copies are being made again");
        assertCode(() -> master.forgetNode(gone, false), FAILED_PRECONDITION, "node " + gone + " holds the last copy that counts of"
                + " slice 0 of obj", "node " + other + "'s pool is lost", "force");
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId).contains(gone);
        assertThat(master.forgetNode(gone, true).replicas()).isEqualTo(1);
    }

    @Test
    void aNodeIsNotForgottenWhileTheOtherCopyOfASliceIsBad() throws StoreException {
        ObjectMeta object = put("obj", SLICE, 2);
        String gone = object.slice(0).nodeIds().get(0);
        ReplicaRef other = object.slice(0).replicas().get(1);
        lose(gone);
        master.heartbeat(new NodeReport(other.nodeId(), NodeLoad.none(), List.of(),
                List.of(new ScrubFinding("obj", object.createdAt(), 0, other.offset(), "block 0 does not match")), 0));
        assertCode(() -> master.forgetNode(gone, false), FAILED_PRECONDITION, "node " + gone + " holds the last copy that counts of"
                + " slice 0 of obj", "the copy on node " + other.nodeId() + " was found bad");
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId).contains(gone);
    }

    @Test
    void aCopyOnANodeThatIsDownWithItsPoolCountsForItMayComeBack() throws StoreException {
        List<String> holders = put("obj", SLICE, 2).slice(0).nodeIds();
        lose(holders.get(0), holders.get(1));
        assertThat(master.forgetNode(holders.get(0), false).replicas()).isEqualTo(1);
        assertCode(() -> master.forgetNode(holders.get(1), false), FAILED_PRECONDITION, "node " + holders.get(1)
                + " holds the only copy of slice 0 of obj");
    }

    @Test
    void aNodeThatIsUpIsForgottenOnlyByForce() throws StoreException {
        put("two", 2 * SLICE, 2);
        assertCode(() -> master.forgetNode("n3", false), FAILED_PRECONDITION, "node n3 is up", "force");
        assertThat(master.forgetNode("n3", true).nodeId()).isEqualTo("n3");
        master.registerNode(node("n3"));
        assertThat(master.status().nodes()).filteredOn(n -> n.nodeId().equals("n3")).singleElement()
                .satisfies(n -> assertThat(n.used()).as("back as an empty node").isZero());
    }

    @Test
    void aKnownIdWithAnotherPoolIsRefusedSoAnIdAlwaysNamesOnePool() throws StoreException {
        NodeInfo copied = new NodeInfo("n1", new Endpoint("h", 1), "/elsewhere", UUID.randomUUID(), NODE);
        assertCode(() -> master.registerNode(copied), StoreException.Code.INVALID_ARGUMENT, "node n1 registered with pool",
                "/elsewhere", "node n1 is up with its own pool");
        lose("n1");
        assertCode(() -> master.registerNode(copied), StoreException.Code.INVALID_ARGUMENT, "node n1 registered with pool",
                "copies are being made again on other nodes", "forget the old one (weightstore store node forget n1)");
    }
}
