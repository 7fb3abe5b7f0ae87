package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.RepairOutcome;
import io.weightstore.store.client.ReplicaVerdict.State;
import io.weightstore.store.client.ReplicaVerdict;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every copy of every slice checked where it lies, and bad or missing copies rewritten from good
 * ones, on a real loopback cluster of one master and three nodes.
 */
class ReplicaCheckAndRepairTest {
    private static final long SIZE = 3 * TestCluster.SLICE + 4321;
    static final String KEY = "two-copies";

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient client;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    @BeforeEach
    void start() throws IOException {
        cluster = newCluster(tmp);
        client = cluster.client();
        data = Bytes.random(arena, SIZE, 7);
        client.put(KEY, data, PutOptions.defaults().withReplicas(2));
    }

    TestCluster newCluster(Path dir) throws IOException {
        return new TestCluster(dir, 3);
    }

    TestCluster cluster() {
        return cluster;
    }

    StoreClient client() {
        return client;
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    private List<ReplicaVerdict> check() throws IOException {
        try (ObjectReader object = client.open(KEY)) {
            return object.checkReplicas();
        }
    }

    void assertAllGoodAndDataIntact() throws IOException {
        assertThat(check()).hasSize(8).allSatisfy(v -> assertThat(v.state()).as(v.toString()).isEqualTo(State.OK));
        assertThat(client.stat(KEY).slices()).allSatisfy(s -> assertThat(s.replicas()).hasSize(2));
        assertThat(Bytes.equal(Bytes.readWhole(client, KEY, arena), data)).isTrue();
    }

    @Test
    void fourFlippedBytesInOneCopyAreFoundAndRewrittenInPlace() throws IOException {
        String rotten = client.stat(KEY).slice(1).replicas().getFirst().nodeId();
        for (long offset : new long[] {10, 70_000, 500_000, TestCluster.SLICE - 1}) {
            cluster.flipByte(KEY, 1, offset);
        }
        List<ReplicaVerdict> verdicts = check();
        assertThat(verdicts).filteredOn(v -> v.state() != State.OK).singleElement().satisfies(v -> {
            assertThat(v.slice()).isEqualTo(1);
            assertThat(v.nodeId()).isEqualTo(rotten);
            assertThat(v.state()).isEqualTo(State.CORRUPT);
            assertThat(v.detail()).contains("checksum mismatch");
        });
        try (ObjectReader object = client.open(KEY)) {
            List<RepairOutcome> outcomes = object.repair(verdicts);
            assertThat(outcomes).singleElement().satisfies(o -> {
                assertThat(o.repaired()).as(o.describe()).isTrue();
                assertThat(o.inPlace()).isTrue();
                assertThat(o.describe()).contains("slice 1 rewritten in place on " + rotten);
            });
        }
        assertAllGoodAndDataIntact();
    }

    @Test
    void aRepairWhoseNewCopysNodeFailsBlamesThatNodeNotTheSource() throws IOException {
        String rotten = client.stat(KEY).slice(1).replicas().getFirst().nodeId();
        String source = client.stat(KEY).slice(1).replicas().getLast().nodeId();
        cluster.flipByte(KEY, 1, 10);
        List<ReplicaVerdict> verdicts = check();
        // Stopped before the master counts it down: the repair's room stays on it, and writing there fails.
        cluster.stopNode(cluster.indexOf(rotten));
        try (ObjectReader object = client.open(KEY)) {
            assertThat(object.repair(verdicts)).singleElement().satisfies(o -> {
                assertThat(o.repaired()).isFalse();
                assertThat(o.node()).isEqualTo(rotten);
                assertThat(o.describe()).contains("could not write slice 1 of " + KEY + " on node " + rotten)
                        .doesNotContain("from " + source);
            });
        }
    }

    @Test
    void theSameHostPathChecksCopiesInTheirMappedPools() throws IOException {
        cluster.flipByte(KEY, 2, 1234);
        try (StoreClient local = cluster.client(ClientOptions.defaults()); ObjectReader object = local.open(KEY)) {
            assertThat(object.checkReplicas()).filteredOn(v -> v.state() != State.OK).singleElement()
                    .satisfies(v -> assertThat(v.detail()).contains("checksum mismatch in pool"));
        }
    }

    @Test
    void copiesOnANodeBackWithoutItsPoolAreMissingAndMoveToOtherNodes() throws Exception {
        String lost = cluster.restartNodeWithoutItsPool(0);
        long held = client.stat(KEY).slices().stream().filter(s -> s.nodeIds().contains(lost)).count();
        assertThat(held).isPositive();
        try (ObjectReader object = client.open(KEY)) {
            assertThat(object.replicaPresence()).filteredOn(v -> v.nodeId().equals(lost)).hasSize((int) held)
                    .allSatisfy(v -> assertThat(v.state()).isEqualTo(State.MISSING));
            List<ReplicaVerdict> verdicts = object.checkReplicas();
            assertThat(verdicts).filteredOn(v -> v.state() != State.OK).hasSize((int) held)
                    .allSatisfy(v -> assertThat(v.detail()).contains("node " + lost + " is down"));
            assertThat(object.repair(verdicts)).hasSize((int) held).allSatisfy(o -> {
                assertThat(o.repaired()).as(o.describe()).isTrue();
                assertThat(o.replaced()).isEqualTo(lost);
                assertThat(o.node()).isNotEqualTo(lost);
            });
            assertThat(object.object().slices()).as("the handle sees the new placement")
                    .allSatisfy(s -> assertThat(s.nodeIds()).doesNotContain(lost));
        }
        assertAllGoodAndDataIntact();
        assertThat(client.forgetNode(lost, false).replicas()).as("nothing left on it to drop").isZero();
    }

    @Test
    void copiesOfAForgottenNodeAreAddedBackElsewhere() throws Exception {
        String gone = cluster.node(0).nodeId();
        cluster.stopNode(0);
        cluster.awaitDown(gone);
        client.forgetNode(gone, false);
        ObjectMeta thinned = client.stat(KEY);
        long lacking = thinned.slices().stream().filter(s -> s.replicas().size() < 2).count();
        assertThat(lacking).isPositive();
        try (ObjectReader object = client.open(KEY)) {
            List<ReplicaVerdict> verdicts = object.checkReplicas();
            assertThat(verdicts).allSatisfy(v -> assertThat(v.state()).isEqualTo(State.OK));
            assertThat(object.repair(verdicts)).hasSize((int) lacking).allSatisfy(o -> {
                assertThat(o.repaired()).as(o.describe()).isTrue();
                assertThat(o.describe()).contains("(a missing copy)");
            });
        }
        for (SliceMeta slice : client.stat(KEY).slices()) {
            assertThat(slice.nodeIds()).hasSize(2).doesNotContain(gone);
        }
        assertThat(Bytes.equal(Bytes.readWhole(client, KEY, arena), data)).isTrue();
    }

    @Test
    void aSliceWithNoGoodCopyIsNotRepairedAndSaysWhy() throws IOException {
        cluster.flipByte(KEY, 0, 0, 99);
        cluster.flipByte(KEY, 0, 1, 99);
        List<ReplicaVerdict> verdicts = check();
        assertThat(verdicts).filteredOn(v -> v.slice() == 0).allSatisfy(v -> assertThat(v.state()).isEqualTo(State.CORRUPT));
        long used = client.status().used();
        try (ObjectReader object = client.open(KEY)) {
            assertThat(object.repair(verdicts)).hasSize(2).allSatisfy(o -> {
                assertThat(o.repaired()).isFalse();
                assertThat(o.describe()).contains("no good copy");
            });
        }
        assertThat(client.status().used()).as("nothing was allocated").isEqualTo(used);
        assertThat(client.stat(KEY).slices().stream().mapToLong(s -> s.replicas().size()).sum()).isEqualTo(8);
    }
}
