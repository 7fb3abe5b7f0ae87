package io.weightstore.store.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Awaits;
import io.weightstore.store.Bytes;
import io.weightstore.store.Metrics;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A rotten replica shows in the metrics of both ends: the node that found the bad block, and the client that moved on. */
class ReadMetricsTest {
    @TempDir
    Path tmp;

    @Test
    void aCorruptReplicaCountsAChecksumFailureAndAFailover() throws Exception {
        try (Arena arena = Arena.ofShared(); TestCluster cluster = new TestCluster(tmp, 2)) {
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
            assertThat(nodeChecksumFailures(cluster)).isEqualTo(1);

            // A whole block read over the socket is checked by the client as it arrives: the node counts nothing more.
            for (int i = 0; i < 20 && corruptFailures(client) == 1; i++) {
                assertThat(Bytes.equal(Bytes.readWhole(client, "rot/a", arena), bytes)).isTrue();
            }
            assertThat(corruptFailures(client)).isEqualTo(2);
            assertThat(Metrics.value(client.metrics().registry(), "weightstore_client_replica_failovers")).isEqualTo(2);
            assertThat(nodeChecksumFailures(cluster)).isEqualTo(1);
        }
    }

    private static double corruptFailures(StoreClient client) {
        return Metrics.value(client.metrics().registry(), "weightstore_client_replica_failures", "reason", "corrupt");
    }

    private static double nodeChecksumFailures(TestCluster cluster) {
        double failures = 0;
        for (int i = 0; i < 2; i++) {
            failures += Metrics.value(cluster.node(i).metrics().registry(), "weightstore_node_checksum_failures");
        }
        return failures;
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
