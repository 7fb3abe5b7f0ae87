package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A node of an older protocol refuses a newer client's hello, and the client tells the operator which to upgrade first. */
class OlderNodeTest {
    @Test
    void aNodeThatRefusesTheVersionMakesTheClientSayUpgradeNodesFirst() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                DeadlineTimer timer = new DeadlineTimer("test-deadlines")) {
            Thread.ofVirtual().start(() -> {
                try (Socket socket = server.accept()) {
                    socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES);
                    socket.getOutputStream().write(FrameCodec.encodeHelloReply(Status.VERSION).array());
                    socket.getInputStream().readAllBytes();
                } catch (IOException e) {
                    // The client went.
                }
            });
            SocketNodeAccess node = new SocketNodeAccess("127.0.0.1", server.getLocalPort(), UUID.randomUUID(), Optional.empty(),
                    Ticket::none, TransferDeadlines.defaults(), timer, CongestionControl.CUBIC);
            try (node) {
                assertThatThrownBy(() -> node.read(List.of(new Range(0, 10)), List.of(), Arena.ofAuto().allocate(10)))
                        .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.code()).isEqualTo(StoreException.Code.PROTOCOL))
                        .hasMessageContaining("127.0.0.1:" + server.getLocalPort())
                        .hasMessageContaining("upgrade the cluster's nodes before its clients");
            }
        }
    }
}
