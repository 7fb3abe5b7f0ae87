package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Role;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsTransport} against the JDK's own {@code SSLSocket} at the other end: a peer that sends
 * session tickets and, when asked to handshake again mid-stream, a TLS 1.3 KeyUpdate that requests
 * one back; and clients with and without certificates under each client-certificate policy.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TlsInteropTest {
    private static final int STREAM = 4 << 20;
    private static final int PIECE = 64 << 10;

    @TempDir
    static Path tmp;

    private static TestTls tls;
    private static byte[] bytes;

    @BeforeAll
    static void cluster() throws Exception {
        tls = TestTls.create(tmp);
        try (Arena arena = Arena.ofConfined()) {
            bytes = TestTls.randomBytes(arena, STREAM, 7).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Writes the stream in pieces, asking for a key update (a post-handshake "handshake" in TLS 1.3) twice on the way. */
    private static void writeWithKeyUpdates(SSLSocket socket) throws Exception {
        OutputStream out = socket.getOutputStream();
        for (int at = 0; at < STREAM; at += PIECE) {
            if (at == STREAM / 4 || at == STREAM / 2) {
                socket.startHandshake();
            }
            out.write(bytes, at, PIECE);
        }
        out.flush();
    }

    private static byte[] readStream(InputStream in) throws Exception {
        byte[] received = new byte[STREAM];
        new DataInputStream(in).readFully(received);
        return received;
    }

    private static void assertReceivesTheStream(Transport transport) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment received = arena.allocate(STREAM);
            TransportRoundTripTest.receive(transport, received, 100_000);
            assertThat(received.mismatch(MemorySegment.ofArray(bytes))).isEqualTo(-1);
        }
    }

    @Test
    void keyUpdatesFromAJdkServerAreAnsweredAndBothDirectionsStayIntact() throws Exception {
        SSLServerSocket listener = (SSLServerSocket) tls.node.sslContext().getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        listener.setSSLParameters(Credentials.serverParameters());
        CompletableFuture<byte[]> served = Loopback.inThread("jdk-server", () -> {
            try (listener; SSLSocket socket = (SSLSocket) listener.accept()) {
                socket.startHandshake();
                writeWithKeyUpdates(socket);
                byte[] back = readStream(socket.getInputStream());
                socket.getOutputStream().write(1);
                return back;
            }
        });

        try (TlsTransport client = TlsTransport.handshake(SocketChannel.open(listener.getLocalSocketAddress()), tls.client)) {
            assertReceivesTheStream(client);
            client.write(ByteBuffer.wrap(bytes));
            client.readFully(ByteBuffer.allocate(1));
        }
        assertThat(served.get(60, TimeUnit.SECONDS)).isEqualTo(bytes);
    }

    @Test
    void keyUpdatesFromAJdkClientAreAnsweredAndBothDirectionsStayIntact() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CompletableFuture<byte[]> client = Loopback.inThread("jdk-client", () -> {
                SSLContext context = tls.reader.sslContext(ExpectedPeer.exactly(tls.node.identity()));
                InetSocketAddress address = (InetSocketAddress) listener.getLocalAddress();
                try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(address.getAddress(), address.getPort())) {
                    socket.setSSLParameters(Credentials.clientParameters());
                    socket.startHandshake();
                    writeWithKeyUpdates(socket);
                    return readStream(socket.getInputStream());
                }
            });
            try (TlsTransport server = TlsTransport.handshake(listener.accept(), tls.server)) {
                assertReceivesTheStream(server);
                server.write(ByteBuffer.wrap(bytes));
                assertThat(client.get(60, TimeUnit.SECONDS)).isEqualTo(bytes);
            }
        }
    }

    /** A JDK client that trusts the cluster CA but has no certificate of its own. */
    private static SSLContext anonymous() throws Exception {
        KeyStore anchors = KeyStore.getInstance("PKCS12");
        anchors.load(null, null);
        anchors.setCertificateEntry("ca", tls.pki.ca.certificate());
        TrustManagerFactory trust = TrustManagerFactory.getInstance("PKIX");
        trust.init(anchors);
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    /** The server's outcome when a client without a certificate connects and says hello. */
    private static Loopback.Outcome serveAnonymous(TlsEndpoint.ClientCertificates policy) throws Exception {
        TlsEndpoint server = TlsEndpoint.server(tls.node, policy);
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            CompletableFuture<Void> client = Loopback.inThread("anonymous-client", () -> {
                InetSocketAddress address = (InetSocketAddress) listener.getLocalAddress();
                try (SSLSocket socket = (SSLSocket) anonymous().getSocketFactory().createSocket(address.getAddress(), address.getPort())) {
                    socket.setSSLParameters(Credentials.clientParameters());
                    socket.getOutputStream().write(5);
                    socket.getInputStream().read();
                } catch (java.io.IOException refused) {
                    // The server's side is what this test looks at.
                }
                return null;
            });
            SocketChannel socket = listener.accept();
            try {
                TlsTransport transport = TlsTransport.handshake(socket, server);
                transport.readFully(ByteBuffer.allocate(1));
                transport.write(ByteBuffer.wrap(new byte[] {6}));
                client.get(30, TimeUnit.SECONDS);
                return new Loopback.Outcome(transport, null, socket);
            } catch (java.io.IOException e) {
                return new Loopback.Outcome(null, e, socket);
            }
        }
    }

    @Test
    void aServerThatRequiresClientCertificatesRefusesAClientWithout() throws Exception {
        Loopback.Outcome served = serveAnonymous(TlsEndpoint.ClientCertificates.REQUIRED);

        assertThat(served.failure()).isInstanceOf(SSLHandshakeException.class).hasMessageEndingWith(
                ": TLS handshake failed: the peer presented no certificate; mutual TLS needs credentials on both ends");
    }

    @Test
    void aServerWithOptionalClientCertificatesTakesAClientWithoutAndSeesNoIdentity() throws Exception {
        Loopback.Outcome served = serveAnonymous(TlsEndpoint.ClientCertificates.OPTIONAL);
        try (Transport transport = served.get()) {
            assertThat(transport.peer()).endsWith("(no certificate)");
            assertThatThrownBy(() -> Credentials.peerIdentity(transport.session().orElseThrow()))
                    .isInstanceOf(SSLPeerUnverifiedException.class);
        }
    }

    @Test
    void aServerWithOptionalClientCertificatesStillChecksOneThatIsPresented() throws Exception {
        Credentials expired = tls.pki.issueExpired(Role.READER, "old-reader");
        TlsEndpoint server = TlsEndpoint.server(tls.node, TlsEndpoint.ClientCertificates.OPTIONAL);
        TlsEndpoint client = TlsEndpoint.client(expired, ExpectedPeer.exactly(tls.node.identity()));
        try (Loopback.Ends ends = Loopback.connect(socket -> TlsTransport.handshake(socket, server),
                socket -> TlsTransport.handshake(socket, client))) {
            assertThat(ends.server().failure()).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageContaining("refused the peer: certificate CN=old-reader expired at");
        }
    }
}
