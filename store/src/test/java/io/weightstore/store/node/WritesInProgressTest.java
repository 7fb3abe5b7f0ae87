package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A registration ends the writes of the master before, and may go on only once none of them can land another byte:
 * closing a writer's connection ends its next read, not the piece it is writing.
 */
class WritesInProgressTest {
    private final WritesInProgress writes = new WritesInProgress();

    @Test
    void endingClosesEachWritersConnectionAndReturnsOnlyOnceItsWriteStopped() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress()); SocketChannel writer = server.accept()) {
            writes.started(writer);
            CompletableFuture<Integer> ending = CompletableFuture.supplyAsync(() -> {
                try {
                    return writes.endAll(System.nanoTime() + Duration.ofSeconds(30).toNanos());
                } catch (StoreException e) {
                    throw new IllegalStateException(e);
                }
            });
            while (writer.isOpen()) {
                Thread.sleep(10);
            }
            Thread.sleep(200);
            assertThat(ending).as("ended while the writer still holds a piece for the pool").isNotDone();
            writes.ended(writer);
            assertThat(ending.get(30, TimeUnit.SECONDS)).as("writes ended").isEqualTo(1);
        }
    }

    @Test
    void aWriteThatDoesNotStopByTheDeadlineFailsTheRegistration() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress()); SocketChannel writer = server.accept()) {
            writes.started(writer);
            assertThatThrownBy(() -> writes.endAll(System.nanoTime() + Duration.ofMillis(100).toNanos()))
                    .isInstanceOf(StoreException.class).hasMessageContaining("still landing bytes in the pool");
            assertThat(writer.isOpen()).isFalse();
        }
    }

    @Test
    void aWriteThatEndedBeforeIsNeitherClosedNorWaitedFor() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress()); SocketChannel writer = server.accept()) {
            writes.started(writer);
            writes.ended(writer);
            assertThat(writes.endAll(System.nanoTime())).isZero();
            assertThat(writer.isOpen()).isTrue();
        }
    }
}
