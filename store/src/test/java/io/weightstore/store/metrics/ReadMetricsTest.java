package io.weightstore.store.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.Awaits;
import io.weightstore.store.Bytes;
import io.weightstore.store.Metrics;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.client.access.SocketNodeAccess;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rotten replica shows in the metrics of both ends: the node that refused the bad block, and the client that moved on. A node
 * counts as corruption only what its scrubber found against the master's checksums, apart from the CRCs readers sent.
 */
class ReadMetricsTest {
    private static final int NODES = 2;

    @TempDir
    Path tmp;

    @Test
    void aCorruptReplicaCountsAReaderMismatchOnTheNodeAndAFailoverOnTheClient() throws Exception {
        try (Arena arena = Arena.ofShared(); TestCluster cluster = new TestCluster(tmp, NODES)) {
            MemorySegment bytes = Bytes.random(arena, 2 * TestCluster.SLICE, 5);
            // Over sockets: a same-host client would check the mapped pool itself, and the node would see nothing.
            StoreClient client = cluster.client(ClientOptions.defaults().withSameHostPath(false));
            client.put("rot/a", bytes, PutOptions.defaults().withReplicas(2));
            cluster.flipByte("rot/a", 0, 0, 100);

            // A range inside one checksum block that the read wants only part of: the node checks that block where it lies.
            // Reads are spread over both replicas, so read until one of them went to the rotten copy.
            MemorySegment part = arena.allocate(10);
            int reads = 0;
            try (var reader = client.open("rot/a")) {
                while (corruptFailures(client) == 0 && reads < 20) {
                    reader.read(new Range(90, 10), part);
                    reads++;
                    assertThat(Bytes.equal(part, bytes.asSlice(90, 10))).isTrue();
                }
            }
            assertThat(corruptFailures(client)).isEqualTo(1);
            assertThat(Metrics.value(client.metrics().registry(), "weightstore_client_replica_failovers")).isEqualTo(1);
            assertThat(Metrics.value(client.metrics().registry(), "weightstore_client_read_bytes")).isEqualTo(10.0 * reads);
            assertThat(Metrics.sum(client.metrics().registry(), "weightstore_client_node_read_bytes", "path", "socket"))
                    .as("only the replica that answered counts its bytes").isEqualTo(10.0 * reads);
            assertThat(nodeCounts(cluster, NODES, "weightstore_node_reader_checksum_mismatches")).isEqualTo(1);
            assertThat(nodeCounts(cluster, NODES, "weightstore_node_checksum_failures")).as("the CRC was the reader's").isZero();

            // A whole block read over the socket is checked by the client as it arrives: the node counts nothing more.
            for (int i = 0; i < 20 && corruptFailures(client) == 1; i++) {
                assertThat(Bytes.equal(Bytes.readWhole(client, "rot/a", arena), bytes)).isTrue();
            }
            assertThat(corruptFailures(client)).isEqualTo(2);
            assertThat(Metrics.value(client.metrics().registry(), "weightstore_client_replica_failovers")).isEqualTo(2);
            assertThat(nodeCounts(cluster, NODES, "weightstore_node_reader_checksum_mismatches")).isEqualTo(1);
        }
    }

    private static double corruptFailures(StoreClient client) {
        return Metrics.value(client.metrics().registry(), "weightstore_client_replica_failures", "reason", "corrupt");
    }

    private static double nodeCounts(TestCluster cluster, int nodes, String counter) {
        double counted = 0;
        for (int i = 0; i < nodes; i++) {
            counted += Metrics.value(cluster.node(i).metrics().registry(), counter);
        }
        return counted;
    }

    @Test
    void aReaderCrcThatDoesNotMatchIntactBytesIsNotCountedAsCorruptionButWhatTheScrubberFindsIs() throws Exception {
        try (Arena arena = Arena.ofShared(); TestCluster cluster = new TestCluster(tmp, 1, TestCluster.config(),
                options -> options.withScrubBytesPerSecond(64_000_000)); DeadlineTimer timer = new DeadlineTimer("test-deadlines")) {
            StorageNode node = cluster.node(0);
            MemorySegment block = Bytes.random(arena, TestCluster.CHECKSUM_BLOCK, 11);
            // Past every object the test puts, so that no scrub task covers these bytes.
            long offset = 32L << 20;
            // A reader whose metadata says other bytes than the node holds, intact as they were written.
            BlockCheck othersMetadata = new BlockCheck(offset, TestCluster.CHECKSUM_BLOCK, ~Checksums.crc32c(block));
            try (SocketNodeAccess access = new SocketNodeAccess("127.0.0.1", node.port(), node.poolUuid(), Optional.empty(),
                    Ticket::none, TransferDeadlines.defaults(), timer, CongestionControl.CUBIC)) {
                access.write(offset, block, Ticket.none());
                assertThatThrownBy(() -> access.read(List.of(new Range(offset + 100, 10)), List.of(othersMetadata),
                        arena.allocate(10), OnBusy.WAIT))
                        .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                        .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.CORRUPT));
            }
            assertThat(nodeCounts(cluster, 1, "weightstore_node_checksum_failures")).as("the pool is intact").isZero();
            assertThat(nodeCounts(cluster, 1, "weightstore_node_reader_checksum_mismatches")).isEqualTo(1);

            cluster.client().put("rot/scrubbed", Bytes.random(arena, TestCluster.SLICE, 12), PutOptions.defaults().withReplicas(1));
            cluster.flipByte("rot/scrubbed", 0, 5);
            // A copy with no other to be rewritten from is found again on each pass: at least once, then.
            Awaits.until(Duration.ofSeconds(90), "the scrubber to find the flipped byte",
                    () -> nodeCounts(cluster, 1, "weightstore_node_checksum_failures") >= 1);
            assertThat(nodeCounts(cluster, 1, "weightstore_node_reader_checksum_mismatches")).isEqualTo(1);
        }
    }

    @Test
    void bytesAreCountedByTheNodeTheyCameFromOverEitherPath() throws Exception {
        try (Arena arena = Arena.ofShared(); TestCluster cluster = new TestCluster(tmp, 2)) {
            MemorySegment bytes = Bytes.random(arena, 2 * TestCluster.SLICE, 7);
            StoreClient sameHost = cluster.client(ClientOptions.defaults());
            sameHost.put("per-node/a", bytes, PutOptions.defaults().withReplicas(1));
            assertThat(Bytes.equal(Bytes.readWhole(sameHost, "per-node/a", arena), bytes)).isTrue();
            StoreClient overSockets = cluster.client();
            assertThat(Bytes.equal(Bytes.readWhole(overSockets, "per-node/a", arena), bytes)).isTrue();

            for (var reads : new Object[][] {{sameHost, "mapped"}, {overSockets, "socket"}}) {
                StoreClient client = (StoreClient) reads[0];
                double perNode = 0;
                for (int i = 0; i < 2; i++) {
                    perNode += Metrics.value(client.metrics().registry(), "weightstore_client_node_read_bytes", "node",
                            cluster.node(i).nodeId(), "path", (String) reads[1]);
                }
                assertThat(perNode).as("bytes read %s, by node", reads[1]).isEqualTo(bytes.byteSize());
                assertThat(Metrics.value(client.metrics().registry(), "weightstore_client_read_bytes")).isEqualTo(bytes.byteSize());
            }
            // A node counts an answer once its last byte is sent, which may be just after the client has taken it.
            Awaits.until(Duration.ofSeconds(10), "the nodes to count what they sent", () -> sentByNodes(cluster) >= bytes.byteSize());
            assertThat(sentByNodes(cluster)).as("a mapped read never reaches the node; a socket read does").isEqualTo(bytes.byteSize());
        }
    }

    private static double sentByNodes(TestCluster cluster) {
        double sent = 0;
        for (int i = 0; i < 2; i++) {
            sent += Metrics.sum(cluster.node(i).metrics().registry(), "weightstore_node_sent_bytes", "op", "read");
        }
        return sent;
    }
}
