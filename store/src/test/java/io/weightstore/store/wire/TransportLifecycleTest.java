package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.wire.TestTls.Kind;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** How connections end: by a deadline cutting a stalled peer, by a clean close, and by a socket that just goes away. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TransportLifecycleTest {
    private static final Duration DEADLINE = Duration.ofMillis(300);
    /** Far beyond the deadline, far below "hangs": a cut that takes longer is a bug. */
    private static final long PROMPTLY_MS = 5_000;

    @TempDir
    static Path tmp;

    private static TestTls tls;
    private static DeadlineTimer timer;

    @BeforeAll
    static void cluster() throws Exception {
        tls = TestTls.create(tmp);
        timer = new DeadlineTimer("test-deadlines");
    }

    @AfterAll
    static void stopTimer() {
        timer.close();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aReadFromAPeerThatSendsNothingIsCutByTheDeadline(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            Transport client = ends.clientEnd();
            long start = System.nanoTime();
            try (DeadlineTimer.Deadline deadline = timer.arm(client, DEADLINE)) {
                assertThatThrownBy(() -> client.read(ByteBuffer.allocateDirect(1 << 20))).isInstanceOf(ClosedChannelException.class);
                assertThat(deadline.expired()).isTrue();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(PROMPTLY_MS);
            client.close();
            assertThat(client.isOpen()).isFalse();
            assertThatThrownBy(() -> client.read(ByteBuffer.allocate(1))).isInstanceOf(IOException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aWriteToAPeerThatReadsNothingIsCutByTheDeadlineOnTheSocket(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            Transport client = ends.clientEnd();
            long start = System.nanoTime();
            // The socket under the transport, as the data plane arms its deadlines today.
            try (DeadlineTimer.Deadline deadline = timer.arm(ends.client().socket(), DEADLINE)) {
                assertThatThrownBy(() -> client.write(ByteBuffer.allocateDirect(256 << 20))).isInstanceOf(ClosedChannelException.class);
                assertThat(deadline.expired()).isTrue();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(PROMPTLY_MS);
            client.close();
            assertThat(client.isOpen()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aHandshakeWithAPeerThatNeverAnswersIsCutByTheDeadline(Kind kind) throws Exception {
        try (ServerSocketChannel silent = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel socket = SocketChannel.open(silent.getLocalAddress())) {
            long start = System.nanoTime();
            try (DeadlineTimer.Deadline deadline = timer.arm(socket, DEADLINE)) {
                // Cut by this side, the failure is the close, not a guess about certificates.
                assertThatThrownBy(() -> TestTls.opener(kind, tls.client).open(socket)).isInstanceOf(ClosedChannelException.class);
                assertThat(deadline.expired()).isTrue();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(PROMPTLY_MS);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aCleanCloseDeliversWhatWasWrittenThenEndsReadsWithMinusOne(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            ends.serverEnd().write(ByteBuffer.wrap(new byte[1000]));
            ends.serverEnd().close();

            ByteBuffer dst = ByteBuffer.allocate(4096);
            while (dst.position() < 1000) {
                assertThat(ends.clientEnd().read(dst)).isPositive();
            }
            assertThat(ends.clientEnd().read(dst)).isEqualTo(-1);
            assertThat(ends.clientEnd().read(dst)).isEqualTo(-1);
            assertThat(dst.position()).isEqualTo(1000);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aSocketThatEndsWithoutTheCloseIsReportedAsCutShort(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            ends.serverEnd().write(ByteBuffer.wrap(new byte[10]));
            // Someone in between ends the TCP connection: no close_notify, no end frame.
            ends.server().socket().close();

            ends.clientEnd().readFully(ByteBuffer.allocate(10));
            assertThatThrownBy(() -> ends.clientEnd().read(ByteBuffer.allocate(10))).isInstanceOf(EOFException.class)
                    .hasMessageContaining("closed the connection without").hasMessageContaining("cut short");
        }
    }

    @Test
    void closingTwiceAndFromAnotherThreadWhileAReadWaitsIsSafe() throws Exception {
        try (Loopback.Ends ends = tls.connect(Kind.TLS)) {
            Transport client = ends.clientEnd();
            var reader = Loopback.inThread("blocked-reader", () -> client.read(ByteBuffer.allocate(10)));
            Thread.sleep(100);
            client.close();
            client.close();
            assertThatThrownBy(() -> reader.get(PROMPTLY_MS, TimeUnit.MILLISECONDS)).hasCauseInstanceOf(ClosedChannelException.class);
            // The server sees the socket go without a close_notify, as the reader was still in the transport.
            assertThatThrownBy(() -> ends.serverEnd().read(ByteBuffer.allocate(10))).isInstanceOf(IOException.class);
        }
    }
}
