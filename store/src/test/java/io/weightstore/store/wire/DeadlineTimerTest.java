package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DeadlineTimerTest {
    private final DeadlineTimer timer = new DeadlineTimer("deadline-timer-test");
    private ServerSocketChannel server;
    private SocketChannel client;
    private SocketChannel silentPeer;

    @BeforeEach
    void connect() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(server.getLocalAddress());
        silentPeer = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        timer.close();
        client.close();
        silentPeer.close();
        server.close();
    }

    @Test
    void aReadThatMovesNothingIsCutByTheStallWindowBeforeTheWholeAllowance() {
        DeadlineTimer.Deadline deadline = timer.arm(client, Duration.ofMinutes(5), Duration.ofMillis(100));
        assertThatThrownBy(() -> client.read(ByteBuffer.allocate(1))).isInstanceOf(AsynchronousCloseException.class);
        assertThat(deadline.expired()).isTrue();
        assertThat(deadline.stalled()).isTrue();
        assertThat(deadline.describe()).isEqualTo("moved nothing for 100 ms");
    }

    @Test
    void awaitingPeerWorkLeavesOnlyTheWholeAllowance() {
        DeadlineTimer.Deadline deadline = timer.arm(client, Duration.ofMillis(400), Duration.ofMillis(50));
        deadline.awaitingPeerWork();
        assertThatThrownBy(() -> client.read(ByteBuffer.allocate(1))).isInstanceOf(AsynchronousCloseException.class);
        assertThat(deadline.expired()).isTrue();
        assertThat(deadline.stalled()).isFalse();
        assertThat(deadline.describe()).isEqualTo("took longer than 400 ms");
    }

    @Test
    void closingTheTimerEndsWhatItGuardsAndWhatIsArmedAfter() throws Exception {
        DeadlineTimer.Deadline deadline = timer.arm(client, Duration.ofMinutes(5), Duration.ofMinutes(5));
        CompletableFuture<Integer> blocked = CompletableFuture.supplyAsync(() -> {
            try {
                return client.read(ByteBuffer.allocate(1));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        timer.close();
        // Closed under the read, or before it began: either way the read fails rather than waits.
        assertThatThrownBy(() -> blocked.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(UncheckedIOException.class)
                .hasRootCauseInstanceOf(ClosedChannelException.class);
        assertThat(deadline.expired()).as("ended by the close, not by its time").isFalse();
        try (SocketChannel late = SocketChannel.open(server.getLocalAddress()); SocketChannel peer = server.accept()) {
            timer.arm(late, Duration.ofMinutes(5));
            assertThat(late.isOpen()).as("armed on a stopped timer").isFalse();
        }
    }

    @Test
    void aDeadlineClosedInTimeLeavesTheChannelOpen() throws IOException {
        DeadlineTimer.Deadline deadline = timer.arm(client, Duration.ofSeconds(30), Duration.ofSeconds(30));
        deadline.close();
        silentPeer.write(ByteBuffer.wrap(new byte[] {42}));
        ByteBuffer one = ByteBuffer.allocate(1);
        assertThat(client.read(one)).isEqualTo(1);
        assertThat(deadline.expired()).isFalse();
        assertThat(client.isOpen()).isTrue();
    }
}
