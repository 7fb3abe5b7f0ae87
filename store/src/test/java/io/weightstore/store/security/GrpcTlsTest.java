package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gRPC over the Netty contexts from {@link Credentials}, with the standard health service as the one method. */
class GrpcTlsTest {
    @TempDir
    Path tmp;

    private TestPki pki;
    private Credentials master;
    private Server server;
    private final AtomicReference<Identity> caller = new AtomicReference<>();

    @BeforeEach
    void startMaster() throws Exception {
        pki = TestPki.create(tmp, "ca");
        master = pki.issue(Role.MASTER, "master-1");
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .sslContext(master.grpcServerContext())
                .addService(ServerInterceptors.intercept(new HealthStatusManager().getHealthService(), recordCaller()))
                .build()
                .start();
    }

    @AfterEach
    void stopMaster() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /** What a role check will do: read the identity the client proved in the TLS handshake. */
    private ServerInterceptor recordCaller() {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
                try {
                    caller.set(Credentials.peerIdentity(session));
                } catch (SSLPeerUnverifiedException e) {
                    call.close(Status.UNAUTHENTICATED.withDescription(e.getMessage()), new Metadata());
                    return new ServerCall.Listener<>() {};
                }
                return next.startCall(call, headers);
            }
        };
    }

    private HealthCheckResponse.ServingStatus check(SslContext client) throws InterruptedException {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).sslContext(client).build();
        try {
            return HealthGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.getDefaultInstance()).getStatus();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientWithCredentialsIsServedAndTheServerKnowsWhoItIs() throws Exception {
        Credentials reader = pki.issue(Role.READER, "reader-1");

        assertThat(check(reader.grpcClientContext(ExpectedPeer.exactly(master.identity()))))
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
        assertThat(caller.get()).isEqualTo(new Identity("reader-1", Role.READER));
        assertThat(check(reader.grpcClientContext(ExpectedPeer.anyWithRole(Role.MASTER))))
                .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    }

    @Test
    void aClientWithoutACertificateHasNoIdentityForTheServerToAdmit() throws Exception {
        // Trusts the cluster CA (and checks the host name, which the master's certificate has), but has no key. The
        // handshake admits it, since token clients have no certificate either; the server's checks then find no one.
        SslContext anonymous = GrpcSslContexts.forClient().trustManager(pki.ca.certificate()).build();

        assertThatThrownBy(() -> check(anonymous))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        assertThat(caller.get()).isNull();
    }

    @Test
    void aClientRefusesAServerThatIsNotTheOneItExpects() throws Exception {
        Credentials writer = pki.issue(Role.WRITER, "writer-1");

        assertThatThrownBy(() -> check(writer.grpcClientContext(ExpectedPeer.exactly(new Identity("node-1", Role.NODE)))))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
                .rootCause().hasMessageContaining("certificate CN=master-1 is master master-1, expected node node-1");
    }

    @Test
    void aClientFromAnotherClusterIsRefused() throws Exception {
        Credentials stranger = TestPki.create(tmp, "other-ca").issue(Role.ADMIN, "admin-1");

        assertThatThrownBy(() -> check(stranger.grpcClientContext(ExpectedPeer.anyWithRole(Role.MASTER))))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE))
                .rootCause().hasMessageContaining("certificate CN=master-1 was issued by "
                        + IdentityCertificates.subjectOf(pki.ca.certificate()) + ", not by this cluster's CA");
        assertThat(caller.get()).isNull();
    }
}
