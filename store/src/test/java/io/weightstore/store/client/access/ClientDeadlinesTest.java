package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Response;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A node that stops answering (frozen, partitioned, overloaded) costs a read its deadline, never a
 * thread forever: the client gives up with a timeout that names the node, and the caller moves on.
 */
class ClientDeadlinesTest {
    private static final TransferDeadlines SHORT = new TransferDeadlines(Duration.ofMillis(400), 1_000_000, Duration.ofMinutes(1));
    /** The pool each hello names: these servers only take it in. */
    private static final UUID POOL = UUID.randomUUID();
    /** Deadlines a test's close comes well within, however loaded the machine. */
    private static final TransferDeadlines LONG = new TransferDeadlines(Duration.ofMinutes(1), 1_000_000, Duration.ofMinutes(1));

    private ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final DeadlineTimer timer = new DeadlineTimer("test-deadlines");
    private volatile boolean answerHandshake;
    private volatile boolean trickle;
    private final CountDownLatch requestArrived = new CountDownLatch(1);

    @BeforeEach
    void listen() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    accepted.add(socket);
                    if (answerHandshake) {
                        readHello(socket);
                        socket.getOutputStream().write(FrameCodec.encodeHelloReply(Status.OK).array());
                        if (!trickle) {
                            Thread.ofVirtual().start(() -> awaitRequest(socket));
                        }
                    }
                    if (trickle) {
                        Thread.ofVirtual().start(() -> trickle(socket));
                    }
                } catch (IOException e) {
                    return;
                }
            }
        });
    }

    /** Takes a request's header and answers nothing: a frozen node, as far as the client can tell. */
    /** The whole hello, as a node takes it before it answers. */
    private static void readHello(Socket socket) throws IOException {
        byte[] header = socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES);
        try {
            socket.getInputStream().readNBytes(FrameCodec.decodeHelloHeader(ByteBuffer.wrap(header)).restLength());
        } catch (FrameException e) {
            throw new IOException(e);
        }
    }

    private void awaitRequest(Socket socket) {
        try {
            if (socket.getInputStream().readNBytes(FrameCodec.REQUEST_HEADER_BYTES).length == FrameCodec.REQUEST_HEADER_BYTES) {
                requestArrived.countDown();
            }
        } catch (IOException e) {
            // The client went.
        }
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        for (Socket socket : accepted) {
            socket.close();
        }
        timer.close();
    }

    @Test
    void aNodeThatNeverAnswersTheHandshakeTimesOut() {
        SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", server.getLocalPort(), POOL, Optional.empty(), Ticket::none, SHORT,
                timer, CongestionControl.CUBIC);
        long start = System.nanoTime();
        assertThatThrownBy(() -> node.read(List.of(new Range(0, 10)), List.of(), Arena.ofAuto().allocate(10)))
                .isInstanceOf(SocketTimeoutException.class).hasMessageContaining("127.0.0.1:" + server.getLocalPort())
                .hasMessageContaining("handshake");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    /** A node's name its resolver never answers for costs the connection its deadline, not the resolver's timeouts and retries. */
    @Test
    void aNodeHostWhoseLookupNeverAnswersTimesOutNamingIt() {
        CountDownLatch never = new CountDownLatch(1);
        HostLookup silent = new HostLookup(host -> {
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
        });
        long start = System.nanoTime();
        assertThatThrownBy(() -> DataPlaneConnection.open(silent, "node-7.cluster.test", server.getLocalPort(), Optional.empty(), POOL,
                Ticket.none(), SHORT.base(), timer, CongestionControl.CUBIC))
                .isInstanceOf(SocketTimeoutException.class).hasMessageContaining("node-7.cluster.test")
                .hasMessageContaining("took longer than its deadline of " + SHORT.base().toMillis() + " ms");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(accepted).as("nothing connected").isEmpty();
    }

    @Test
    void aNodeGivenByItsAddressIsNotLookedUp() throws Exception {
        answerHandshake = true;
        HostLookup refusing = new HostLookup(host -> {
            throw new AssertionError("looked up " + host);
        });
        DataPlaneConnection.open(refusing, "127.0.0.1", server.getLocalPort(), Optional.empty(), POOL, Ticket.none(), LONG.base(), timer,
                CongestionControl.CUBIC).close();
        assertThat(accepted).hasSize(1);
    }

    /** Announces a MiB for the first request, then sends one byte every 50 ms: always moving, never done in time. */
    private static void trickle(Socket socket) {
        try {
            socket.getInputStream().readNBytes(FrameCodec.REQUEST_HEADER_BYTES);
            ByteBuffer header = FrameCodec.encode(Response.ok(1 << 20), ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES));
            socket.getOutputStream().write(header.array(), 0, header.remaining());
            for (int i = 0; i < 1 << 20; i++) {
                socket.getOutputStream().write(i);
                Thread.sleep(50);
            }
        } catch (IOException | InterruptedException e) {
            // The client cut it off, as it should.
        }
    }

    @Test
    void aNodeThatStopsAnsweringMidReadIsCutAfterTheStallWindow() {
        answerHandshake = true;
        SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", server.getLocalPort(), POOL, Optional.empty(), Ticket::none, SHORT,
                timer, CongestionControl.CUBIC);
        assertThatThrownBy(() -> node.read(List.of(new Range(0, 1 << 20)), List.of(), Arena.ofAuto().allocate(1 << 20)))
                .isInstanceOf(SocketTimeoutException.class).hasMessageContaining("READ of 1048576 bytes")
                .hasMessageContaining("moved nothing for " + SHORT.stall().toMillis() + " ms");
    }

    @Test
    void closingTheAccessEndsAnExchangeInFlightAtOnce() throws Exception {
        answerHandshake = true;
        SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", server.getLocalPort(), POOL, Optional.empty(), Ticket::none, LONG,
                timer, CongestionControl.CUBIC);
        CompletableFuture<Void> read = CompletableFuture.runAsync(() -> {
            try {
                node.read(List.of(new Range(0, 1 << 20)), List.of(), Arena.ofAuto().allocate(1 << 20));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(requestArrived.await(10, TimeUnit.SECONDS)).as("the read's request reached the node").isTrue();
        node.close();
        assertThatThrownBy(() -> read.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UncheckedIOException.class).hasMessageContaining("was closed during the exchange");
    }

    @Test
    void aNodeThatKeepsTricklingIsCutWhenTheWholeAllowanceRunsOut() {
        answerHandshake = true;
        trickle = true;
        SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", server.getLocalPort(), POOL, Optional.empty(), Ticket::none, SHORT,
                timer, CongestionControl.CUBIC);
        assertThatThrownBy(() -> node.read(List.of(new Range(0, 1 << 20)), List.of(), Arena.ofAuto().allocate(1 << 20)))
                .isInstanceOf(SocketTimeoutException.class).hasMessageContaining("READ of 1048576 bytes")
                .hasMessageContaining("took longer than " + SHORT.forBytes(1 << 20).toMillis() + " ms");
    }
}
