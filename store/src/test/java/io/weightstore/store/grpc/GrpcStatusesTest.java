package io.weightstore.store.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.grpc.Status;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class GrpcStatusesTest {
    @Test
    void aConnectionClosedUnderACallIsUnavailableSoTheCallerMayTryAnotherMaster() {
        StoreException closed = GrpcStatuses.toStoreException(Status.UNKNOWN.withDescription("channel closed")
                .withCause(new ClosedChannelException()).asRuntimeException(), "stat", false);

        assertThat(closed.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
        assertThat(closed.getMessage()).isEqualTo("stat: the connection to the master closed during the call");
    }

    @Test
    void anyOtherUnknownStatusStaysAnInputOutputError() {
        StoreException other = GrpcStatuses.toStoreException(Status.UNKNOWN.withDescription("something else")
                .asRuntimeException(GrpcStatuses.answered()), "stat", false);

        assertThat(other.code()).isEqualTo(StoreException.Code.IO);
        assertThat(other.getMessage()).isEqualTo("something else");
    }

    /** A port another server listens on: gRPC says "http2 exception", which named neither the address nor the likely mistake. */
    @Test
    void aServerThatIsNoMasterIsNamedWithTheAddressAsked() throws Exception {
        // The socket closes first, which ends the answering thread's accept.
        try (ExecutorService answering = Executors.newVirtualThreadPerTaskExecutor();
                ServerSocket http = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            answering.submit(() -> {
                while (!http.isClosed()) {
                    // As an HTTP/1 server does: reads the request (gRPC's preface), answers 400, and waits for the client to go.
                    try (Socket client = http.accept()) {
                        client.getInputStream().readNBytes(24);
                        client.getOutputStream().write("HTTP/1.0 400 Bad request\r\nContent-Length: 0\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                        client.getInputStream().transferTo(OutputStream.nullOutputStream());
                    }
                }
                return null;
            });
            String address = "127.0.0.1:" + http.getLocalPort();
            try (GrpcMasterApi master = GrpcMasterApi.connect(address, Authentication.insecure())) {
                assertThatThrownBy(master::status).isInstanceOf(StoreException.class)
                        .hasMessageStartingWith("status at master " + address + ": no weightstore master answered there (")
                        .hasMessageEndingWith("is that the master's port, not a node's, the gateway's or another server's?");
            }
        }
    }

    @Test
    void anUnavailableAnswerFromTheMasterItselfIsItsOwnWordsNotAMasterUnavailable() {
        StoreException refused = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("put of x needs 3 nodes up, 2 are")
                .asRuntimeException(GrpcStatuses.answered()), "put x", true);

        assertThat(refused.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
        assertThat(refused.getMessage()).isEqualTo("put of x needs 3 nodes up, 2 are");
    }

    @Test
    void aPlaintextConnectionTheTransportSawResetSuggestsCredentials() {
        StoreException reset = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new IOException("Connection reset by peer")).asRuntimeException(), "stat", true);

        assertThat(reset.getMessage()).startsWith("stat: master unavailable: UNAVAILABLE: io exception (Connection reset by peer)")
                .endsWith("give --credentials DIR (or $WEIGHTSTORE_CREDENTIALS)");
    }

    @Test
    void aTlsFailureNamesTheCertificateChecksReasonNotTheEnginesWrapper() {
        Exception check = new java.security.cert.CertificateException("certificate CN=master was issued by CN=other CA, not by"
                + " this cluster's CA");
        StoreException refused = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .withCause(new javax.net.ssl.SSLHandshakeException("General OpenSslEngine problem", check)).asRuntimeException(),
                "stat", false);

        assertThat(refused.getMessage()).isEqualTo("stat: master unavailable: TLS: certificate CN=master was issued by CN=other CA,"
                + " not by this cluster's CA");
    }

    @Test
    void onlyTheLeadersOwnRefusalIsTakenAsTheAnswerOfAGroup() {
        StoreException own = GrpcStatuses.toStoreException(GrpcStatuses.toStatus(
                new StoreException(StoreException.Code.UNAVAILABLE, "3 replicas need 3 nodes that are up and not being drained, 2 are")),
                "set replicas", false);
        StoreException steppedDown = GrpcStatuses.toStoreException(GrpcStatuses.toStatus(
                LeaderGate.steppedDown("this master stepped down and serves no metadata: closed", null)), "set replicas", false);
        Metadata followerTrailers = GrpcStatuses.answered();
        followerTrailers.put(GrpcStatuses.LEADER, "127.0.0.1:1");
        StoreException follower = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("not the leader")
                .asRuntimeException(followerTrailers), "set replicas", false);
        StoreException unreachable = GrpcStatuses.toStoreException(Status.UNAVAILABLE.withDescription("io exception")
                .asRuntimeException(), "set replicas", false);

        assertThat(GrpcStatuses.answeredAsLeader(own)).isTrue();
        assertThat(GrpcStatuses.answeredAsLeader(steppedDown)).isFalse();
        assertThat(GrpcStatuses.answeredAsLeader(follower)).isFalse();
        assertThat(GrpcStatuses.answeredAsLeader(unreachable)).isFalse();
    }

    /** An Error in a master's operation is still its answer: the client must not take the master for another server. */
    @Test
    void anErrorInAMastersOperationIsAnsweredAsTheMastersOwn() throws Exception {
        MasterApi failing = (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "status" -> throw new AssertionError("an invariant the master checks");
                    case "close" -> null;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        try (MasterEndpoint endpoint = MasterEndpoint.start(failing, "127.0.0.1", 0, MasterSecurity.insecure());
                GrpcMasterApi master = GrpcMasterApi.connect("127.0.0.1:" + endpoint.port(), Authentication.insecure())) {
            assertThatThrownBy(master::status).isInstanceOf(StoreException.class).hasMessage("an invariant the master checks")
                    .satisfies(e -> assertThat(GrpcStatuses.answered((StoreException) e)).isTrue());
        }
    }
}
