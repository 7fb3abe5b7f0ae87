package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A connection waiting for its next request belongs to exactly one of: its handler, or the node closing it to make room. */
class IdleConnectionsTest {
    private final IdleConnections idle = new IdleConnections();

    @Test
    void aConnectionIsTakenToMakeRoomOnlyOnceIdleASecondAndThenItsHandlerMayNotServeIt() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress()); SocketChannel served = server.accept()) {
            idle.idle(served);
            assertThat(idle.closeLongestIdle()).as("idle for less than a second: between two pieces of a load").isFalse();
            assertThat(served.isOpen()).isTrue();
            Thread.sleep(Duration.ofNanos(IdleConnections.MIN_IDLE_NANOS).plusMillis(100));
            assertThat(idle.closeLongestIdle()).isTrue();
            assertThat(served.isOpen()).isFalse();
            assertThat(idle.claim(served)).as("the request that arrived meanwhile is not answered").isFalse();
        }
    }

    @Test
    void ofTwoConnectionsIdleLongEnoughTheOneIdleLongestIsTaken() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel first = SocketChannel.open(server.getLocalAddress()); SocketChannel longest = server.accept();
                SocketChannel second = SocketChannel.open(server.getLocalAddress()); SocketChannel later = server.accept()) {
            idle.idle(longest);
            Thread.sleep(50);
            idle.idle(later);
            Thread.sleep(Duration.ofNanos(IdleConnections.MIN_IDLE_NANOS).plusMillis(100));
            assertThat(idle.closeLongestIdle()).isTrue();
            assertThat(longest.isOpen()).isFalse();
            assertThat(later.isOpen()).isTrue();
        }
    }

    @Test
    void aConnectionItsHandlerClaimedIsNotTaken() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel client = SocketChannel.open(server.getLocalAddress()); SocketChannel served = server.accept()) {
            idle.idle(served);
            Thread.sleep(Duration.ofNanos(IdleConnections.MIN_IDLE_NANOS).plusMillis(100));
            assertThat(idle.claim(served)).isTrue();
            assertThat(idle.closeLongestIdle()).isFalse();
            assertThat(served.isOpen()).isTrue();
        }
    }
}
