package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The TCP congestion control a data-plane socket is given is the one the kernel then sends under. */
class TcpSocketsTest {
    /** Built into every Linux kernel and open to unprivileged processes, and the default of none of these hosts. */
    private static final CongestionControl RENO = new CongestionControl("reno");

    @Test
    void anAlgorithmSetBeforeTheConnectIsTheOneBothEndsSendUnder() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open(); SocketChannel client = SocketChannel.open()) {
            assertThat(TcpSockets.setCongestionControl(server, RENO)).isTrue();
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            assertThat(TcpSockets.setCongestionControl(client, RENO)).isTrue();
            client.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                assertThat(TcpSockets.congestionControl(client)).isEqualTo("reno");
                assertThat(TcpSockets.congestionControl(accepted)).as("taken from the listening socket").isEqualTo("reno");
            }
        }
    }

    @Test
    void theHostDefaultLeavesASocketAsTheHostSays() throws IOException {
        String host = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_congestion_control")).strip();
        try (SocketChannel socket = SocketChannel.open()) {
            assertThat(TcpSockets.setCongestionControl(socket, CongestionControl.HOST_DEFAULT)).isTrue();
            assertThat(TcpSockets.congestionControl(socket)).isEqualTo(host);
        }
    }

    @Test
    void anAlgorithmTheKernelLacksIsRefusedByNameWithTheOnesItHas() throws IOException {
        String available = Files.readString(Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control")).strip();
        try (SocketChannel socket = SocketChannel.open()) {
            assertThatThrownBy(() -> TcpSockets.setCongestionControl(socket, new CongestionControl("no_such_cc")))
                    .isInstanceOf(IOException.class)
                    .hasMessage("the kernel refused TCP congestion control 'no_such_cc': it has no such algorithm (available: "
                            + available + ")");
        }
    }

    @Test
    void aNameTheKernelCouldNotHoldIsRefusedBeforeAnySocketSeesIt() {
        for (String bad : new String[] {"", "Cubic", "cubic;reno", "sixteen_letters_", "system "}) {
            assertThatThrownBy(() -> new CongestionControl(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("algorithm=" + bad);
        }
        assertThat(new CongestionControl("system").isHostDefault()).isTrue();
        assertThat(new CongestionControl("fifteen_letters").algorithm()).isEqualTo("fifteen_letters");
    }
}
