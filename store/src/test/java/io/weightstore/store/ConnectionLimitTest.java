package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many engines, one node: clients keep their connections pooled after a load, and a node at its
 * connection limit must still serve the next engine, over sockets, on a node that allows one connection.
 */
class ConnectionLimitTest {
    private static final long SIZE = 3 * TestCluster.SLICE + 777;
    /** Past the second a node leaves a connection that is not at work alone before it may take it to make room. */
    private static final long AGED_MILLIS = 1_100;

    @TempDir
    Path tmp;

    private TestCluster cluster;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    @BeforeEach
    void start() throws Exception {
        cluster = new TestCluster(tmp, 1, TestCluster.config(), options -> options.withMaxConnections(1));
        data = Bytes.random(arena, SIZE, 7);
        try (StoreClient writer = sockets()) {
            writer.put("k", data, PutOptions.defaults());
        }
        // The node frees the writer's place once it reads the close: a peer that came first would be refused BUSY.
        Awaits.until(Duration.ofSeconds(10), "the node to count the writer's connection closed",
                () -> cluster.node(0).openConnections() == 0);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    private StoreClient sockets() throws IOException {
        return cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(1));
    }

    private boolean readsBack(StoreClient client) throws IOException {
        return Bytes.equal(Bytes.readWhole(client, "k", arena), data);
    }

    @Test
    void aConnectionAnotherClientKeepsIdleMakesWayForTheNextClient() throws Exception {
        try (StoreClient first = sockets(); StoreClient second = sockets()) {
            assertThat(readsBack(first)).isTrue();
            assertThat(readsBack(second)).as("read while the first client keeps its connection pooled").isTrue();
            assertThat(readsBack(first)).as("the first again, its pooled connection closed under it").isTrue();
        }
    }

    @Test
    void aClientToldBusyAsksAgainUntilAConnectionEnds() throws Exception {
        // A connection at work is never closed to make room: it holds the one place there is.
        BusyConnection holder = BusyConnection.on(cluster.node(0));
        try (StoreClient client = sockets()) {
            CompletableFuture<Void> leaves = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(300);
                    holder.close();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(readsBack(client)).isTrue();
            leaves.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPeerSilentSinceItConnectedMakesWayOnceItHasBeenSoForASecond() throws Exception {
        try (Socket silent = new Socket("127.0.0.1", cluster.node(0).port())) {
            assertMakesWayOnceAged(silent, "the silent connection");
        }
    }

    @Test
    void aPeerThatStopsInsideTheTicketOfItsHelloMakesWayOnceItHasBeenSoForASecond() throws Exception {
        try (Socket stopped = new Socket("127.0.0.1", cluster.node(0).port())) {
            // A hello whose header announces a ticket of 1,000 bytes, none of which follow.
            stopped.getOutputStream().write(ByteBuffer.allocate(FrameCodec.HELLO_BYTES).putInt(FrameCodec.MAGIC)
                    .putShort(FrameCodec.VERSION).putShort((short) 1000).array());
            assertMakesWayOnceAged(stopped, "the connection stopped inside its hello");
        }
    }

    @Test
    void aPeerAdmittedThatSendsNoRequestMakesWayOnceItHasWaitedASecond() throws Exception {
        try (Socket admitted = new Socket("127.0.0.1", cluster.node(0).port())) {
            ByteBuffer hello = FrameCodec.encodeHello(cluster.node(0).poolUuid(), Ticket.none());
            admitted.getOutputStream().write(hello.array(), 0, hello.remaining());
            assertThat(FrameCodec.decodeHelloReply(ByteBuffer.wrap(admitted.getInputStream().readNBytes(FrameCodec.HELLO_BYTES)))
                    .status()).isEqualTo(Status.OK);
            assertMakesWayOnceAged(admitted, "the connection that sent nothing");
        }
    }

    /**
     * Once {@code peer} has held the node's one place, not at work, for over a second, a client that waits only half a
     * second for a busy node reads all the same, and {@code peer} finds its connection closed.
     */
    private void assertMakesWayOnceAged(Socket peer, String what) throws Exception {
        Thread.sleep(AGED_MILLIS);
        try (StoreClient impatient = cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(1)
                .withDeadlines(new TransferDeadlines(Duration.ofMillis(500), 1_000_000, Duration.ofSeconds(30))))) {
            assertThat(readsBack(impatient)).isTrue();
        }
        assertThat(peer.getInputStream().read()).as("the node closed " + what).isEqualTo(-1);
    }
}
