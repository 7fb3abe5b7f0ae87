package io.weightstore.store;

import static io.weightstore.store.StoreClientContract.assertCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
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
        MemorySegment back = arena.allocate(SIZE);
        client.readInto(key, List.of(new Range(0, SIZE)), back);
        assertThat(Bytes.equal(back, data)).as("bytes of " + key).isTrue();
    }

    @Test
    void readCompletesWhenANodeDiesBeforeTheMasterNotices() throws IOException {
        StoreClient client = cluster.client();
        client.put("two-copies", data, replicas(2));
        cluster.stopNode(0);
        assertReadsBack(client, "two-copies");
    }

    @Test
    void readCompletesWhenANodeIsKilledDuringIt() throws Exception {
        cluster.client().put("two-copies", data, replicas(2));
        // One connection and small pieces make the read long enough to be cut in the middle.
        StoreClient slow = cluster.client(new ClientOptions(1, false, "", 256 << 10));
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
        ObjectInfo info = client.put("one-copy", data, replicas(1));
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
    void masterRestartKeepsEveryObject() throws Exception {
        StoreClient client = cluster.client();
        client.put("durable/a", data, replicas(2));
        client.put("durable/b", data.asSlice(0, 1000), replicas(1));
        cluster.stopMaster();
        cluster.startMaster();
        StoreClient after = cluster.client();
        assertThat(after.list("durable/")).extracting(ObjectInfo::key).containsExactly("durable/a", "durable/b");
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
        client.readInto("rot1", List.of(new Range(0, 1000)), head);
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
        assertThatThrownBy(() -> client.readStrided("rot-strided", 128, 64, rowBytes, rows, column))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT))
                .hasMessageContaining("slice 2");

        client.put("rot-strided2", data, replicas(2));
        corruptFirstReplicaOfSlice("rot-strided2", 2);
        client.readStrided("rot-strided2", 128, 64, rowBytes, rows, column);
        for (int row = 0; row < rows; row += 97) {
            assertThat(Bytes.equal(column.asSlice(64L * row, 64), data.asSlice(row * rowBytes + 128, 64))).as("row %d", row).isTrue();
        }
    }

    private void corruptFirstReplicaOfSlice(String key, int sliceIndex) throws IOException {
        cluster.flipByte(key, sliceIndex, 777);
    }

    @Test
    void readLeaseBlocksRemovalByAnotherClientUntilReleasedOrForced() throws IOException {
        StoreClient reader = cluster.client();
        StoreClient admin = cluster.client();
        reader.put("leased", data.asSlice(0, 100), replicas(1));
        reader.readInto("leased", List.of(new Range(0, 100)), arena.allocate(100));
        assertCode(() -> admin.remove("leased", false), StoreException.Code.FAILED_PRECONDITION);
        reader.releaseLeases();
        admin.remove("leased", false);

        reader.put("leased2", data.asSlice(0, 100), replicas(1));
        reader.readInto("leased2", List.of(new Range(0, 100)), arena.allocate(100));
        admin.remove("leased2", true);
        assertCode(() -> admin.stat("leased2"), StoreException.Code.NOT_FOUND);
    }

    @Test
    void putNeedsAsManyNodesUpAsReplicas() {
        assertCode(() -> cluster.client().put("four", data.asSlice(0, 10), replicas(4)), StoreException.Code.UNAVAILABLE);
    }
}
