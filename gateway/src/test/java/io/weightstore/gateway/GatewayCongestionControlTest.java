package io.weightstore.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.SocketAlgorithms;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's responses go out under the TCP congestion control it was given, whatever the host's default, as the
 * store's nodes send theirs: {@code ss} reads it off the connection the gateway accepted.
 */
class GatewayCongestionControlTest {
    @TempDir
    Path tmp;

    @Test
    void theConnectionsTheGatewayAcceptsSendUnderTheAlgorithmItWasGiven() throws Exception {
        // Not the host's default: only the setting can put it on the gateway's sockets.
        String host = SocketAlgorithms.hostDefault();
        String algorithm = host.equals("reno") ? "cubic" : "reno";
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
                S3Gateway gateway = S3Gateway.start(GatewayConfig.defaults(0, Access.anonymousOnly())
                        .withCongestionControl(new CongestionControl(algorithm)), store);
                Socket client = new Socket(GatewayConfig.DEFAULT_HOST, gateway.port())) {
            assertThat(gateway.congestionControl()).isEqualTo(algorithm);
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("GET /" + GatewayConfig.DEFAULT_BUCKET + "?list-type=2 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = client.getInputStream();
            // The answer's first bytes: the gateway has accepted the connection and written on it.
            assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
            assertThat(SocketAlgorithms.of("sport = :" + gateway.port())).as("the gateway's end").containsExactly(algorithm);
            assertThat(SocketAlgorithms.of("dport = :" + gateway.port())).as("the client's end").containsExactly(host);
        }
    }

    @Test
    void aGatewayGivenAnAlgorithmTheKernelLacksDoesNotStart() throws Exception {
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults())) {
            assertThatThrownBy(() -> S3Gateway.start(GatewayConfig.defaults(0, Access.anonymousOnly())
                    .withCongestionControl(new CongestionControl("no_such_cc")), store))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("gateway: the kernel refused TCP congestion control 'no_such_cc': it has no such algorithm");
        }
    }

    @Test
    void aGatewaySendsUnderCubicUnlessToldOtherwise() throws Exception {
        GatewayConfig defaults = GatewayConfig.defaults(0, Access.anonymousOnly());
        assertThat(defaults.congestionControl()).isEqualTo(CongestionControl.CUBIC);
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
                S3Gateway gateway = S3Gateway.start(defaults, store)) {
            assertThat(gateway.congestionControl()).isEqualTo("cubic");
        }
    }
}
