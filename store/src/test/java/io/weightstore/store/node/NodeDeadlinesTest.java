package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Awaits;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node frees what idle or stalled peers hold, and refuses connections past its bound with a clear status. */
class NodeDeadlinesTest {
    private static final TransferDeadlines SHORT = new TransferDeadlines(Duration.ofMillis(500), 1_000_000, Duration.ofMillis(700));

    @TempDir
    Path tmp;

    private MasterServer master;
    private StorageNode node;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        master = MasterServer.start(tmp.resolve("master"), io.weightstore.store.TestCluster.config(), "127.0.0.1", 0, MasterSecurity.insecure());
        node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("pool"), 8 << 20)
                .withDeadlines(SHORT).withMaxConnections(3));
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        node.close();
        master.close();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", node.port());
        socket.setSoTimeout(5000);
        sockets.add(socket);
        return socket;
    }

    private static Status hello(Socket socket, StorageNode to) throws Exception {
        ByteBuffer hello = FrameCodec.encodeHello(to.poolUuid(), Ticket.none());
        socket.getOutputStream().write(hello.array(), 0, hello.remaining());
        return FrameCodec.decodeHelloReply(ByteBuffer.wrap(socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES))).status();
    }

    private void awaitOpenConnections(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (node.openConnections() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(node.openConnections()).isEqualTo(expected);
    }

    @Test
    void idleConnectionsAreClosedAndTheirThreadsFreed() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(hello(connect(), node)).isEqualTo(Status.OK);
        }
        awaitOpenConnections(3);
        awaitOpenConnections(0);
        assertThat(sockets.getFirst().getInputStream().read()).as("the node closed the idle connection").isEqualTo(-1);
    }

    @Test
    void aPeerThatNeverFinishesItsHandshakeIsDroppedAtTheDeadline() throws Exception {
        Socket silent = connect();
        silent.getOutputStream().write(new byte[] {0x57, 0x53});
        awaitOpenConnections(1);
        awaitOpenConnections(0);
        assertThat(silent.getInputStream().read()).isEqualTo(-1);
    }

    @Test
    void aRequestThatStopsHalfwayIsCutAtTheStallWindowNotTheIdleTimeout() throws Exception {
        TransferDeadlines patientBetweenRequests = new TransferDeadlines(Duration.ofMillis(500), 1_000_000, Duration.ofMinutes(5));
        try (StorageNode patient = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("patient"), 8 << 20)
                .withDeadlines(patientBetweenRequests))) {
            Socket socket = new Socket("127.0.0.1", patient.port());
            socket.setSoTimeout(5000);
            sockets.add(socket);
            assertThat(hello(socket, patient)).isEqualTo(Status.OK);
            ByteBuffer frame = FrameCodec.encode(new Request.Read(new Range(0, 16), List.of()), null);
            socket.getOutputStream().write(frame.array(), 0, 3);
            assertThat(socket.getInputStream().read()).as("the node closed the connection whose request stopped").isEqualTo(-1);
        }
    }

    @Test
    void connectionsPastTheBoundAreToldBusyAndServedAgainOnceTheyLeave() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(hello(connect(), node)).isEqualTo(Status.OK);
        }
        awaitOpenConnections(3);
        assertThat(hello(connect(), node)).isEqualTo(Status.BUSY);
        for (Socket socket : List.copyOf(sockets)) {
            socket.close();
        }
        awaitOpenConnections(0);
        assertThat(hello(connect(), node)).isEqualTo(Status.OK);
    }

    @Test
    void aFrameAskingForMoreHashingThanItsDeadlineAllowsGivesItsThreadBackAtTheDeadline() throws Exception {
        int block = 64 << 20;
        CRC32C zeros = new CRC32C();
        byte[] mebibyte = new byte[1 << 20];
        for (int i = 0; i < block / mebibyte.length; i++) {
            zeros.update(mebibyte);
        }
        try (StorageNode large = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(tmp.resolve("large"), block)
                .withDeadlines(SHORT))) {
            Socket socket = new Socket("127.0.0.1", large.port());
            sockets.add(socket);
            assertThat(hello(socket, large)).isEqualTo(Status.OK);
            // A check frame of one 64 MiB block of the (zeroed) pool, named as many times as a frame allows: 1 TiB to hash,
            // minutes of a core, for a frame whose deadline is the base one.
            List<BlockCheck> checks = Collections.nCopies(FrameCodec.MAX_CHECKS, new BlockCheck(0, block, (int) zeros.getValue()));
            ByteBuffer frame = FrameCodec.encode(new Request.Read(new Range(0, 0), checks), null);
            long start = System.nanoTime();
            socket.getOutputStream().write(frame.array(), 0, frame.remaining());
            assertThat(socket.getInputStream().read()).as("the node cut the frame at its deadline").isEqualTo(-1);
            Awaits.until(Duration.ofSeconds(10), "the node's connection thread to stop hashing", () -> large.openConnections() == 0);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void refusalsToAPeerThatReadsNoneOfThemAreCutAtTheDeadline() throws Exception {
        Socket greedy = new Socket();
        sockets.add(greedy);
        // A small window, so the node's answers fill it and its socket buffer within a few thousand refusals.
        greedy.setReceiveBufferSize(4096);
        greedy.connect(new InetSocketAddress("127.0.0.1", node.port()));
        assertThat(hello(greedy, node)).isEqualTo(Status.OK);
        ByteBuffer outside = FrameCodec.encode(new Request.Read(new Range(1L << 40, 1), List.of()), null);
        byte[] frames = new byte[outside.remaining() * 1024];
        for (int i = 0; i < 1024; i++) {
            outside.get(0, frames, i * outside.remaining(), outside.remaining());
        }
        // Requests the node refuses (OUT_OF_RANGE keeps the connection), sent until the node stops taking them; none read.
        Thread sender = Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    greedy.getOutputStream().write(frames);
                }
            } catch (IOException closed) {
                // The node cut the connection, or the test closed it.
            }
        });
        awaitOpenConnections(1);
        awaitOpenConnections(0);
        sender.join(Duration.ofSeconds(10));
        assertThat(sender.isAlive()).as("the node closed the connection under the sender").isFalse();
    }

    @Test
    void aWriteWhosePayloadStallsIsCutAtItsDeadline() throws Exception {
        Socket writer = connect();
        assertThat(hello(writer, node)).isEqualTo(Status.OK);
        ByteBuffer frame = FrameCodec.encode(new Request.Write(new Range(0, 1 << 20), Ticket.none()), null);
        writer.getOutputStream().write(frame.array(), 0, frame.remaining());
        writer.getOutputStream().write(new byte[1000]);
        InputStream in = writer.getInputStream();
        long start = System.nanoTime();
        assertThat(in.read()).isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    }
}
