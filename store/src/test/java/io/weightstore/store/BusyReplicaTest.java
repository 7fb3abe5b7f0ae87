package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Status;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replica's node that stays BUSY past the base deadline costs a read that one wait, not one per piece. */
class BusyReplicaTest {
    private static final long SIZE = 8 * TestCluster.SLICE;

    @TempDir
    Path tmp;

    @Test
    void aNodeBusyPastTheDeadlineIsAskedLastForTheRestOfTheRead() throws Exception {
        try (TestCluster cluster = new TestCluster(tmp, 2, TestCluster.config(), options -> options.withMaxConnections(1));
                Arena arena = Arena.ofShared()) {
            MemorySegment data = Bytes.random(arena, SIZE, 11);
            try (StoreClient writer = cluster.client(ClientOptions.defaults().withSameHostPath(false))) {
                writer.put("k", data, PutOptions.defaults().withReplicas(2));
            }
            // A connection at its handshake, pooled by no one, holds node 0's one place: it answers BUSY to all others.
            try (Socket holder = new Socket("127.0.0.1", cluster.node(0).port())) {
                ByteBuffer hello = FrameCodec.encodeHello(Ticket.none());
                holder.getOutputStream().write(hello.array(), 0, hello.remaining());
                assertThat(FrameCodec.decodeHelloReply(ByteBuffer.wrap(holder.getInputStream().readNBytes(FrameCodec.HELLO_BYTES)))
                        .status()).isEqualTo(Status.OK);
                TransferDeadlines deadlines = new TransferDeadlines(Duration.ofMillis(500), 1_000_000, Duration.ofSeconds(30));
                StoreClient reader = cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(1)
                        .withMaxPieceBytes(TestCluster.SLICE).withDeadlines(deadlines));
                assertThat(Bytes.equal(Bytes.readWhole(reader, "k", arena), data)).isTrue();
                assertThat(Metrics.value(reader.metrics().registry(), "weightstore_client_replica_failures", "reason", "unavailable"))
                        .as("pieces that waited node 0's BUSY out").isLessThanOrEqualTo(1);
            }
        }
    }
}
