package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read whose replica's node answers BUSY (every connection it allows at work) asks the other replicas
 * at once, and waits for a place only when every replica is busy, on whichever frees first.
 */
class BusyReplicaTest {
    private static final long SIZE = 8 * TestCluster.SLICE;
    /** Far longer than the test waits for anything, so that a piece that waited a busy node out shows in the metrics. */
    private static final TransferDeadlines PATIENT = new TransferDeadlines(Duration.ofSeconds(5), 1_000_000, Duration.ofSeconds(30));

    @TempDir
    Path tmp;

    @Test
    void aReadAsksAnotherReplicaAtOnceWhenANodeHasNoConnectionToSpare() throws Exception {
        try (TestCluster cluster = twoNodesOfOneConnection(); Arena arena = Arena.ofShared()) {
            MemorySegment data = putOnBoth(cluster, arena);
            try (BusyConnection holder = BusyConnection.on(cluster.node(0)); StoreClient reader = reader(cluster, PATIENT)) {
                assertThat(Bytes.equal(Bytes.readWhole(reader, "k", arena), data)).isTrue();
                assertThat(failures(reader, "unavailable")).as("pieces that waited node 0's BUSY out").isZero();
                assertThat(failures(reader, "busy")).as("pieces that found node 0 busy").isGreaterThanOrEqualTo(1);
            }
        }
    }

    @Test
    void aReadWhoseEveryReplicaIsBusyTakesTheFirstPlaceThatFrees() throws Exception {
        try (TestCluster cluster = twoNodesOfOneConnection(); Arena arena = Arena.ofShared()) {
            MemorySegment data = putOnBoth(cluster, arena);
            try (BusyConnection heldForGood = BusyConnection.on(cluster.node(0));
                    BusyConnection heldAWhile = BusyConnection.on(cluster.node(1)); StoreClient reader = reader(cluster, PATIENT)) {
                Thread release = Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(300);
                        heldAWhile.close();
                    } catch (InterruptedException | IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThat(Bytes.equal(Bytes.readWhole(reader, "k", arena), data)).isTrue();
                release.join();
                assertThat(failures(reader, "unavailable")).as("pieces that waited node 0's BUSY out alone").isZero();
                assertThat(failures(reader, "busy")).as("busy answers while both nodes were held").isGreaterThanOrEqualTo(2);
            }
        }
    }

    @Test
    void aPieceWhoseOnlyReplicaWasBusyForAMomentIsCountedBusyOnceAndNoFailover() throws Exception {
        try (TestCluster cluster = twoNodesOfOneConnection(); Arena arena = Arena.ofShared()) {
            MemorySegment data = Bytes.random(arena, TestCluster.SLICE, 13);
            try (StoreClient writer = cluster.client(ClientOptions.defaults().withSameHostPath(false))) {
                writer.put("k", data, PutOptions.defaults().withReplicas(1));
            }
            try (StoreClient reader = reader(cluster, PATIENT)) {
                int holding = cluster.indexOf(reader.stat("k").slices().getFirst().replicas().getFirst().nodeId());
                BusyConnection holder = BusyConnection.on(cluster.node(holding));
                // Freed once the read found the node busy, however long the read took to get there.
                Thread release = Thread.ofVirtual().start(() -> {
                    try {
                        Awaits.until(Duration.ofSeconds(30), "the read to find the node busy", () -> failures(reader, "busy") >= 1);
                        holder.close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThat(Bytes.equal(Bytes.readWhole(reader, "k", arena), data)).isTrue();
                release.join();
                assertThat(failures(reader, "busy")).as("the one piece found its only replica busy, however often it asked").isEqualTo(1);
                assertThat(Metrics.value(reader.metrics().registry(), "weightstore_client_replica_failovers"))
                        .as("served by the replica asked first").isZero();
            }
        }
    }

    @Test
    void aSliceWhoseOnlyReplicaStaysBusyPastTheBaseDeadlineFailsUnavailableNamingIt() throws Exception {
        try (TestCluster cluster = twoNodesOfOneConnection(); Arena arena = Arena.ofShared()) {
            try (StoreClient writer = cluster.client(ClientOptions.defaults().withSameHostPath(false))) {
                writer.put("k", Bytes.random(arena, TestCluster.SLICE, 12), PutOptions.defaults().withReplicas(1));
            }
            try (StoreClient reader = reader(cluster, new TransferDeadlines(Duration.ofMillis(300), 1_000_000, Duration.ofSeconds(30)))) {
                int holding = cluster.indexOf(reader.stat("k").slices().getFirst().replicas().getFirst().nodeId());
                try (BusyConnection holder = BusyConnection.on(cluster.node(holding))) {
                    assertThatThrownBy(() -> Bytes.readWhole(reader, "k", arena)).isInstanceOfSatisfying(StoreException.class,
                            e -> assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE))
                            .hasMessageContaining(cluster.node(holding).nodeId() + ": busy");
                }
            }
        }
    }

    private TestCluster twoNodesOfOneConnection() throws Exception {
        return new TestCluster(tmp, 2, TestCluster.config(), options -> options.withMaxConnections(1));
    }

    private static MemorySegment putOnBoth(TestCluster cluster, Arena arena) throws IOException {
        MemorySegment data = Bytes.random(arena, SIZE, 11);
        try (StoreClient writer = cluster.client(ClientOptions.defaults().withSameHostPath(false))) {
            writer.put("k", data, PutOptions.defaults().withReplicas(2));
        }
        return data;
    }

    private static StoreClient reader(TestCluster cluster, TransferDeadlines deadlines) throws StoreException {
        return cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(1).withMaxPieceBytes(TestCluster.SLICE)
                .withDeadlines(deadlines));
    }

    private static double failures(StoreClient reader, String reason) {
        return Metrics.value(reader.metrics().registry(), "weightstore_client_replica_failures", "reason", reason);
    }
}
