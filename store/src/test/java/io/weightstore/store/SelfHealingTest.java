package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.ReplicaVerdict;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.ReplicationConfig;
import io.weightstore.store.node.NodeOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The master keeps every slice at its replica count by itself, nodes copying from one another, on a
 * loopback cluster of one master and four nodes: a node gone for good, a copy gone bad, a node
 * drained, and a replica count raised and lowered while a reader reads. Every copy is checked
 * where it lies afterwards, and every byte read back.
 */
class SelfHealingTest {
    static final String KEY = "healing";
    private static final long SIZE = 5 * TestCluster.SLICE + 777;
    private static final Duration PATIENCE = Duration.ofSeconds(90);

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient client;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    /**
     * A second's grace for a node that is down, copies at 200 MB/s, scrubbers at 64 MB/s, and auto
     * counts of a copy per two readers, kept a second after they are gone.
     */
    static MasterConfig config() {
        return TestCluster.config().withReplication(ReplicationConfig.defaults().withRepairAfter(Duration.ofSeconds(1))
                .withCopyBytesPerSecond(200_000_000).withReadersPerReplica(2).withCoolDown(Duration.ofSeconds(1)));
    }

    static NodeOptions scrubbing(NodeOptions options) {
        return options.withScrubBytesPerSecond(64_000_000);
    }

    TestCluster newCluster(Path dir, MasterConfig config, UnaryOperator<NodeOptions> nodes) throws IOException {
        return new TestCluster(dir, 4, config, nodes);
    }

    @BeforeEach
    void start() throws IOException {
        cluster = newCluster(tmp, config(), SelfHealingTest::scrubbing);
        client = cluster.client();
        data = Bytes.random(arena, SIZE, 11);
        client.put(KEY, data, PutOptions.defaults().withReplicas(2));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    @Test
    void aNodeGoneForGoodHasItsCopiesMadeAgainOnTheOthers() throws Exception {
        String gone = cluster.node(0).nodeId();
        assertThat(slicesOn(gone)).isPositive();
        cluster.stopNode(0);
        await("every slice back at 2 copies, none on node " + gone, () -> client.stat(KEY).slices().stream()
                .allMatch(s -> s.replicas().size() == 2 && !s.nodeIds().contains(gone)));
        assertEveryCopyGoodAndTheBytesWhole(2);
        await("the master to report the replicas OK", () -> client.status().replication().state() == ReplicationStatus.State.OK);
    }

    @Test
    void aSliceWhoseOnlyCopyIsOnANodeGoneMakesTheReplicasUnreadableNotDegradedUntilItIsBack() throws Exception {
        ObjectMeta single = client.put("single", data.asSlice(0, 1000), PutOptions.defaults().withReplicas(1));
        int holder = cluster.indexOf(single.slices().getFirst().nodeIds().getFirst());
        cluster.stopNode(holder);
        await("the master to report a slice no copy can serve", () -> client.status().replication().state()
                == ReplicationStatus.State.UNREADABLE);
        assertThat(client.status().replication().slicesWithoutGoodCopy()).isEqualTo(1);

        cluster.restartNode(holder);
        await("the replicas back to OK once the node is", () -> client.status().replication().state() == ReplicationStatus.State.OK);
    }

    @Test
    void aCopyGoneBadIsFoundByTheScrubberAndRewrittenInPlace() throws Exception {
        ReplicaRef rotten = client.stat(KEY).slice(1).replicas().getFirst();
        cluster.flipByte(KEY, 1, 0, 70_000);
        await("the scrubber to find the bad copy and its node to rewrite it", () -> {
            try (ObjectReader object = client.open(KEY)) {
                return object.checkReplicas().stream().allMatch(v -> v.state() == ReplicaVerdict.State.OK);
            }
        });
        assertThat(client.stat(KEY).slice(1).replicas()).as("rewritten where it was").contains(rotten);
        assertThat(client.status().nodes()).filteredOn(n -> n.nodeId().equals(rotten.nodeId())).singleElement()
                .satisfies(n -> assertThat(n.load().bytesScrubbed()).isPositive());
        assertEveryCopyGoodAndTheBytesWhole(2);
    }

    @Test
    void aDrainedNodeEndsHoldingNothingAndEveryCopyChecksOut() throws Exception {
        String leaving = cluster.node(0).nodeId();
        assertThat(slicesOn(leaving)).isPositive();
        assertThat(client.drainNode(leaving, false).draining()).isTrue();
        await("node " + leaving + " to hold nothing", () -> slicesOn(leaving) == 0 && client.drainNode(leaving, false).replicasLeft() == 0);
        assertEveryCopyGoodAndTheBytesWhole(2);
        ObjectMeta later = client.put("after-the-drain", data, PutOptions.defaults().withReplicas(3));
        assertThat(later.slices()).as("nothing new goes on a drained node").allSatisfy(s -> assertThat(s.nodeIds()).doesNotContain(leaving));
        assertThat(client.forgetNode(leaving, true).replicas()).as("nothing left on it to drop").isZero();
    }

    @Test
    void theReplicaCountGoesUpAndDownWhileAReaderReads() throws Exception {
        AtomicBoolean reading = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            try (StoreClient other = cluster.client(); ObjectReader object = other.open(KEY); Arena mine = Arena.ofConfined()) {
                MemorySegment back = mine.allocate(SIZE);
                while (reading.get() || reads.get() == 0) {
                    object.read(new Range(0, SIZE), back);
                    assertThat(Bytes.equal(back, data)).as("read " + reads.get()).isTrue();
                    reads.incrementAndGet();
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(client.setReplicas(List.of(KEY, "no-such-object"), 4, false)).isEqualTo(1);
        await("every slice at 4 copies", () -> client.stat(KEY).slices().stream().allMatch(s -> s.replicas().size() == 4));
        assertEveryCopyGoodAndTheBytesWhole(4);
        assertThat(client.setReplicas(List.of(KEY), 1, false)).isEqualTo(1);
        await("every slice at 1 copy", () -> client.stat(KEY).slices().stream().allMatch(s -> s.replicas().size() == 1));
        reading.set(false);
        reader.join();
        assertThat(reads.get()).isPositive();
        assertEveryCopyGoodAndTheBytesWhole(1);
    }

    @Test
    void anAutoCountAddsCopiesWhileReadersHoldTheObjectAndTrimsThemOnceTheyAreGone() throws Exception {
        assertThat(client.setReplicas(List.of(KEY), 1, true)).isEqualTo(1);
        await("the count back to its floor of 1", () -> client.stat(KEY).slices().stream().allMatch(s -> s.replicas().size() == 1));
        List<ObjectReader> readers = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                readers.add(client.open(KEY));
            }
            await("a copy per two readers: 3", () -> client.stat(KEY).slices().stream().allMatch(s -> s.replicas().size() == 3));
            assertEveryCopyGoodAndTheBytesWhole(3);
        } finally {
            readers.forEach(ObjectReader::close);
        }
        await("the copies readers called for trimmed once they are gone",
                () -> client.stat(KEY).slices().stream().allMatch(s -> s.replicas().size() == 1));
        assertEveryCopyGoodAndTheBytesWhole(1);
    }

    private long slicesOn(String nodeId) throws IOException {
        return client.stat(KEY).slices().stream().filter(s -> s.nodeIds().contains(nodeId)).count();
    }

    private void assertEveryCopyGoodAndTheBytesWhole(int copies) throws IOException {
        try (ObjectReader object = client.open(KEY)) {
            assertThat(object.object().slices()).allSatisfy(s -> assertThat(s.replicas()).hasSize(copies));
            assertThat(object.checkReplicas()).allSatisfy(v -> assertThat(v.state()).as(v.toString()).isEqualTo(ReplicaVerdict.State.OK));
            for (SliceMeta slice : object.object().slices()) {
                assertThat(slice.nodeIds()).doesNotHaveDuplicates();
            }
        }
        assertThat(Bytes.equal(Bytes.readWhole(client, KEY, arena), data)).isTrue();
        assertThat(client.status().nodes().stream().filter(NodeStatus::up).count()).isPositive();
    }

    private static void await(String what, Awaits.Condition condition) throws Exception {
        Awaits.until(PATIENCE, what, condition);
    }
}
