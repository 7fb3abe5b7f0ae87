package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real TLS 1.3 handshakes between an {@code SSLServerSocket} and an {@code SSLSocket} on 127.0.0.1. */
class TlsHandshakeTest {
    @TempDir
    Path tmp;

    private TestPki pki;
    private ExecutorService executor;

    @BeforeEach
    void createCluster() throws Exception {
        pki = TestPki.create(tmp, "ca");
        executor = Executors.newVirtualThreadPerTaskExecutor();
    }

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** What the server saw of its one connection: the client's identity, or why the handshake failed. */
    record Served(SSLSession session, Identity client, IOException failure) {}

    /** What the client saw: the server's session, or the failure from the handshake or the first read. */
    record Reached(SSLSession session, IOException failure) {}

    /** Serves one connection with {@code server}'s credentials; the client is given one byte once both agree. */
    private Future<Served> serveOnce(SSLServerSocket listener) {
        return executor.submit(() -> {
            try (listener; SSLSocket socket = (SSLSocket) listener.accept()) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                Identity client = Credentials.peerIdentity(socket.getSession());
                socket.getOutputStream().write(42);
                socket.getOutputStream().flush();
                socket.getInputStream().read();
                return new Served(socket.getSession(), client, null);
            } catch (IOException e) {
                return new Served(null, null, e);
            }
        });
    }

    private SSLServerSocket listen(SSLContext context) throws IOException {
        SSLServerSocket listener = (SSLServerSocket) context.getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        listener.setSSLParameters(Credentials.serverParameters());
        return listener;
    }

    private static Reached connect(SSLContext context, int port) {
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSSLParameters(Credentials.clientParameters());
            socket.setSoTimeout(10_000);
            socket.startHandshake();
            // In TLS 1.3 the server checks the client's certificate after the client has finished its handshake:
            // a refusal shows up on the first read.
            assertThat(socket.getInputStream().read()).isEqualTo(42);
            return new Reached(socket.getSession(), null);
        } catch (IOException e) {
            return new Reached(null, e);
        }
    }

    private record Run(Served served, Reached reached) {}

    private Run handshake(SSLContext server, SSLContext client) throws Exception {
        SSLServerSocket listener = listen(server);
        Future<Served> served = serveOnce(listener);
        Reached reached = connect(client, listener.getLocalPort());
        return new Run(served.get(20, TimeUnit.SECONDS), reached);
    }

    @Test
    void mutualTls13AndEachSideSeesTheOthersIdentity() throws Exception {
        Credentials master = pki.issue(Role.MASTER, "master-1");
        Credentials reader = pki.issue(Role.READER, "reader-1");

        Run run = handshake(master.sslContext(), reader.sslContext(ExpectedPeer.exactly(master.identity())));

        assertThat(run.reached().failure()).isNull();
        assertThat(run.served().failure()).isNull();
        assertThat(run.served().client()).isEqualTo(new Identity("reader-1", Role.READER));
        assertThat(run.served().session().getProtocol()).isEqualTo("TLSv1.3");
        SSLSession client = run.reached().session();
        assertThat(client.getProtocol()).isEqualTo("TLSv1.3");
        assertThat(Credentials.peerIdentity(client)).isEqualTo(master.identity());
        assertThat(Credentials.expectPeer(client, ExpectedPeer.anyWithRole(Role.MASTER))).isEqualTo(master.identity());
        assertThatThrownBy(() -> Credentials.expectPeer(client, ExpectedPeer.exactly(new Identity("node-1", Role.NODE))))
                .isInstanceOf(SSLPeerUnverifiedException.class)
                .hasMessage("peer " + client.getPeerHost() + ":" + client.getPeerPort()
                        + " is master master-1, expected node node-1");
    }

    @Test
    void aClientExpectingAnotherNodeRefusesTheServerInTheHandshake() throws Exception {
        Credentials node2 = pki.issue(Role.NODE, "node-2");
        Credentials writer = pki.issue(Role.WRITER, "writer-1");

        Run run = handshake(node2.sslContext(),
                writer.sslContext(ExpectedPeer.exactly(new Identity("node-1", Role.NODE))));

        assertThat(run.reached().failure()).hasMessageContaining("certificate CN=node-2 is node node-2, expected node node-1");
        assertThat(run.served().failure()).isNotNull();
    }

    @Test
    void credentialsFromAnotherCaAreRefusedWithAClearMessageOnBothSides() throws Exception {
        Credentials master = pki.issue(Role.MASTER, "master-1");
        TestPki otherCluster = TestPki.create(tmp, "other-ca");
        Credentials stranger = otherCluster.issue(Role.ADMIN, "admin-1");
        String ours = IdentityCertificates.subjectOf(pki.ca.certificate());
        String theirs = IdentityCertificates.subjectOf(otherCluster.ca.certificate());

        // A whole other cluster's credentials: the client refuses the server first, as it trusts another CA.
        Run run = handshake(master.sslContext(), stranger.sslContext());
        assertThat(stranger.explain(run.reached().failure())).hasMessage("TLS handshake failed: refused the peer: "
                + "certificate CN=master-1 was issued by " + ours + ", not by this cluster's CA " + theirs);
        // The server learns of it by an alert, or by a broken connection when the alert came while it was writing.
        assertThat(master.explain(run.served().failure())).hasMessageContaining("refused our"
                + " certificate CN=master-1 (issued by " + ours + ")").hasMessageEndingWith(": the peer does not"
                + " trust our CA " + ours + ", or expected another identity");

        // A client that trusts this cluster's CA and sends its other certificate even though the server asked for
        // this CA's (as a hand-made client would): the server refuses it.
        SSLContext intruder = SSLContext.getInstance("TLSv1.3");
        intruder.init(new KeyManager[] {new AlwaysPresent(
                KeyFiles.readPrivateKey(tmp.resolve("other-ca-admin-1/identity.key")), stranger.certificate())},
                new TrustManager[] {new ClusterTrustManager(pki.ca.certificate(), null)}, null);
        run = handshake(master.sslContext(), intruder);
        assertThat(master.explain(run.served().failure())).hasMessage("TLS handshake failed: refused the peer: "
                + "certificate CN=admin-1 was issued by " + theirs + ", not by this cluster's CA " + ours);
        assertThat(stranger.explain(run.reached().failure())).hasMessageContaining(
                "refused our certificate CN=admin-1 (issued by " + theirs + ")");
    }

    @Test
    void anExpiredClientCertificateIsRefusedWithItsExpiry() throws Exception {
        Credentials node = pki.issue(Role.NODE, "node-1");
        Credentials expired = pki.issueExpired(Role.READER, "old-reader");
        String expiry = expired.certificate().getNotAfter().toInstant().toString();

        Run run = handshake(node.sslContext(), expired.sslContext());

        assertThat(run.served().failure()).hasMessageEndingWith("certificate CN=old-reader expired at " + expiry);
        assertThat(node.explain(run.served().failure()))
                .hasMessage("TLS handshake failed: refused the peer: certificate CN=old-reader expired at " + expiry);
        // The client learns of it by an alert, or by a broken connection when the alert came while it was writing.
        assertThat(expired.explain(run.reached().failure())).hasMessageContaining("refused our certificate"
                + " CN=old-reader (issued by " + IdentityCertificates.subjectOf(pki.ca.certificate()) + ")")
                .hasMessageEndingWith(": certificate CN=old-reader expired at " + expiry);
    }

    @Test
    void anExpiredServerCertificateIsRefusedByTheClient() throws Exception {
        Credentials expired = pki.issueExpired(Role.NODE, "old-node");
        Credentials reader = pki.issue(Role.READER, "reader-1");

        Run run = handshake(expired.sslContext(), reader.sslContext());

        assertThat(reader.explain(run.reached().failure())).hasMessage("TLS handshake failed: refused the peer: "
                + "certificate CN=old-node expired at " + expired.certificate().getNotAfter().toInstant());
    }

    @Test
    void aClientWithoutACertificateIsRefused() throws Exception {
        Credentials node = pki.issue(Role.NODE, "node-1");
        SSLContext anonymous = SSLContext.getInstance("TLSv1.3");
        anonymous.init(null, new TrustManager[] {new ClusterTrustManager(pki.ca.certificate(), null)}, null);

        Run run = handshake(node.sslContext(), anonymous);

        assertThat(node.explain(run.served().failure()))
                .hasMessage("TLS handshake failed: the peer presented no certificate; mutual TLS needs credentials on both ends");
        assertThat(node.explain(run.reached().failure()))
                .hasMessage("TLS handshake failed: the peer requires a client certificate and got none");
    }

    /** A client key manager that presents its certificate whichever CAs the server asks for. */
    private static final class AlwaysPresent extends X509ExtendedKeyManager {
        private final PrivateKey key;
        private final X509Certificate certificate;

        AlwaysPresent(PrivateKey key, X509Certificate certificate) {
            this.key = key;
            this.certificate = certificate;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "it";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return "it";
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return new X509Certificate[] {certificate};
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return key;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"it"};
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }
    }
}
