package io.weightstore.store;

import static io.weightstore.store.StoreClientContract.assertCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nodes and masters that die, restart or rot, on a real loopback cluster of one master and three nodes. */
class ClusterFailureTest {
    private static final long SIZE = 16 * TestCluster.SLICE + 12345;
    /**
     * Short, so that a test outlives several, yet renewed (at half of it) often enough that a loaded
     * machine's stall of a few hundred milliseconds does not let one lapse.
     */
    private static final Duration LEASE = Duration.ofSeconds(1);

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    @BeforeEach
    void start() throws StoreException {
        cluster = new TestCluster(tmp, 3);
        data = Bytes.random(arena, SIZE, 42);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    private PutOptions replicas(int n) {
        return PutOptions.defaults().withReplicas(n);
    }

    private void assertReadsBack(StoreClient client, String key) throws IOException {
        assertThat(Bytes.equal(Bytes.readWhole(client, key, arena), data)).as("bytes of " + key).isTrue();
    }

    @Test
    void readCompletesWhenANodeDiesBeforeTheMasterNotices() throws IOException {
        StoreClient client = cluster.client();
        client.put("two-copies", data, replicas(2));
        cluster.stopNode(0);
        assertReadsBack(client, "two-copies");
    }

    @Test
    void readMovesOnWhenANodeAnswersThatAValidRangeIsOutsideItsPool() throws Exception {
        StoreClient client = cluster.client();
        client.put("three-copies", data, replicas(3));
        // A node that lies, or a man in the middle of a plain data plane: the first answer on each connection to
        // node 0 says OUT_OF_RANGE (its status byte, after the 8-byte hello reply, turned from OK to 2).
        try (TamperingProxy liar = new TamperingProxy(cluster.node(0).port(), FrameCodec.HELLO_BYTES, Status.OUT_OF_RANGE.code())) {
            cluster.advertise(0, liar.port());
            StoreClient reader = cluster.client();
            assertReadsBack(reader, "three-copies");
            assertThat(Metrics.value(reader.metrics().registry(), "weightstore_client_replica_failovers"))
                    .as("the slices node 0 was asked for came from the other copies").isPositive();
        }
    }

    @Test
    void readCompletesWhenANodeIsKilledDuringIt() throws Exception {
        cluster.client().put("two-copies", data, replicas(2));
        // One connection and small pieces make the read long enough to be cut in the middle.
        StoreClient slow = cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(1)
                .withMaxPieceBytes(256 << 10));
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 5; i++) {
                    assertReadsBack(slow, "two-copies");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        Thread.sleep(30);
        cluster.stopNode(1);
        reading.get(60, TimeUnit.SECONDS);
    }

    @Test
    void restartedNodeServesItsDataAgain() throws IOException {
        StoreClient client = cluster.client();
        ObjectMeta info = client.put("one-copy", data, replicas(1));
        int holder = cluster.indexOf(info.slices().getFirst().nodeIds().getFirst());
        cluster.stopNode(holder);
        assertThatThrownBy(() -> assertReadsBack(client, "one-copy"))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                .hasMessageContaining("one-copy").hasMessageContaining("slice ");
        cluster.restartNode(holder);
        assertReadsBack(client, "one-copy");
    }

    @Test
    void aCopyWhoseAddressNowServesAnotherPoolIsUnavailableNotCorrupt() throws IOException {
        StoreClient client = cluster.client();
        ObjectMeta info = client.put("one-copy", data, replicas(1));
        int holder = cluster.indexOf(info.slices().getFirst().nodeIds().getFirst());
        int other = (holder + 1) % 3;
        // The holder's address now reaches another node, as after a host came back with a new node on the old port: its
        // pool would serve other bytes at the copy's offsets, and a write there would land over another object's.
        cluster.advertise(holder, cluster.node(other).port());

        assertThatThrownBy(() -> assertReadsBack(cluster.client(), "one-copy"))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                .hasMessageContaining("does not serve pool " + cluster.node(holder).poolUuid())
                .hasMessageNotContaining("checksum");
    }

    @Test
    void masterRestartKeepsEveryObject() throws Exception {
        StoreClient client = cluster.client();
        client.put("durable/a", data, replicas(2));
        client.put("durable/b", data.asSlice(0, 1000), replicas(1));
        cluster.stopMaster();
        cluster.startMaster();
        StoreClient after = cluster.client();
        assertThat(after.list("durable/")).extracting(ObjectMeta::key).containsExactly("durable/a", "durable/b");
        assertReadsBack(after, "durable/a");
    }

    @Test
    void corruptByteIsCaughtAndReadFromTheOtherReplica() throws IOException {
        StoreClient client = cluster.client();
        client.put("rot", data, replicas(2));
        corruptFirstReplicaOfSlice("rot", 3);
        assertReadsBack(client, "rot");
    }

    @Test
    void corruptByteWithoutAnotherReplicaFailsNamingKeyAndSlice() throws IOException {
        StoreClient client = cluster.client();
        client.put("rot1", data, replicas(1));
        corruptFirstReplicaOfSlice("rot1", 5);
        assertThatThrownBy(() -> assertReadsBack(client, "rot1"))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
                .hasMessageContaining("slice 5").hasMessageContaining("rot1").hasMessageContaining("checksum mismatch");
        // Bytes outside the corrupt block still read fine.
        MemorySegment head = arena.allocate(1000);
        try (ObjectReader rot = client.open("rot1")) {
            rot.read(new Range(0, 1000), head);
        }
        assertThat(Bytes.equal(head, data.asSlice(0, 1000))).isTrue();
    }

    @Test
    void corruptByteIsCaughtOnTheSameHostPathToo() throws IOException {
        StoreClient client = cluster.client(ClientOptions.defaults().withSameHostPath(true));
        client.put("rot-local", data, replicas(2));
        corruptFirstReplicaOfSlice("rot-local", 0);
        assertReadsBack(client, "rot-local");
    }

    @Test
    void corruptByteUnderAStridedReadIsCaughtByTheNode() throws IOException {
        StoreClient client = cluster.client();
        client.put("rot-strided", data, replicas(1));
        corruptFirstReplicaOfSlice("rot-strided", 2);
        long rowBytes = 4096;
        int rows = (int) (SIZE / rowBytes);
        MemorySegment column = arena.allocate(64L * rows);
        Stride stride = new Stride(128, 64, rowBytes, rows);
        assertThatThrownBy(() -> readStrided(client, "rot-strided", stride, column))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
                .hasMessageContaining("slice 2");

        client.put("rot-strided2", data, replicas(2));
        corruptFirstReplicaOfSlice("rot-strided2", 2);
        readStrided(client, "rot-strided2", stride, column);
        for (int row = 0; row < rows; row += 97) {
            assertThat(Bytes.equal(column.asSlice(64L * row, 64), data.asSlice(row * rowBytes + 128, 64))).as("row %d", row).isTrue();
        }
    }

    private void corruptFirstReplicaOfSlice(String key, int sliceIndex) throws IOException {
        cluster.flipByte(key, sliceIndex, 777);
    }

    private static void readStrided(StoreClient client, String key, Stride stride, MemorySegment dst) throws IOException {
        try (ObjectReader object = client.open(key)) {
            object.readStrided(stride, dst);
        }
    }

    @Test
    void openReaderKeepsItsLeasePastTheLeaseDuration() throws Exception {
        StoreClient reader = cluster.client(ClientOptions.defaults().withSameHostPath(false).withLeaseDuration(LEASE));
        StoreClient admin = cluster.client();
        reader.put("long-read", data.asSlice(0, 100), replicas(1));
        try (ObjectReader object = reader.open("long-read")) {
            // Several lease lengths pass while the reader stays open: the client renews in the background.
            Thread.sleep(LEASE.multipliedBy(3).plusMillis(500).toMillis());
            assertCode(() -> admin.remove("long-read", false), StoreException.Code.FAILED_PRECONDITION);
            object.read(new Range(0, 100), arena.allocate(100));
        }
        admin.remove("long-read", false);
    }

    @Test
    void readerSurvivesAMasterRestartByTakingANewLease() throws Exception {
        StoreClient reader = cluster.client(ClientOptions.defaults().withSameHostPath(false).withLeaseDuration(LEASE));
        reader.put("across-restart", data, replicas(2));
        try (ObjectReader object = reader.open("across-restart")) {
            cluster.stopMaster();
            cluster.startMaster();
            Thread.sleep(LEASE.multipliedBy(2).plusMillis(500).toMillis());
            assertCode(() -> cluster.client().remove("across-restart", false), StoreException.Code.FAILED_PRECONDITION);
            MemorySegment back = arena.allocate(SIZE);
            object.read(new Range(0, SIZE), back);
            assertThat(Bytes.equal(back, data)).isTrue();
        }
    }

    @Test
    void putNeedsAsManyNodesUpAsReplicasAndTheRefusalSaysSoWithoutBlamingTls() {
        assertThatThrownBy(() -> cluster.client().put("four", data.asSlice(0, 10), replicas(4)))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                .hasMessageContaining("put of four needs 4 nodes up, 3 are")
                .hasMessageNotContaining("--credentials");
    }
}
