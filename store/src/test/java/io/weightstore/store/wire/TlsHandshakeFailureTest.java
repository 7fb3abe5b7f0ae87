package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.IdentityCertificates;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TestPki;
import io.weightstore.store.wire.TestTls.Kind;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A peer that should not be trusted fails the handshake on both ends with a message that names the
 * certificate and the reason. In TLS 1.3 a client hears that the server refused it only on its first
 * read, so each end here also makes the first exchange of a protocol: the server speaks first.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TlsHandshakeFailureTest {
    @TempDir
    Path tmp;

    private TestPki pki;
    private Credentials node;

    @BeforeEach
    void cluster() throws Exception {
        pki = TestPki.create(tmp, "ca");
        node = pki.issue(Role.NODE, "node-1");
    }

    /** Both ends' failures, as the handshake and the first exchange of {@code kind} leave them. */
    private static Loopback.Ends shake(Kind kind, TlsEndpoint server, TlsEndpoint client) throws Exception {
        Loopback.Opener serverEnd = TestTls.opener(kind, server);
        Loopback.Opener clientEnd = TestTls.opener(kind, client);
        return Loopback.connect(socket -> {
            Transport t = serverEnd.open(socket);
            t.write(ByteBuffer.wrap(new byte[] {42}));
            t.readFully(ByteBuffer.allocate(1));
            return t;
        }, socket -> {
            Transport t = clientEnd.open(socket);
            t.readFully(ByteBuffer.allocate(1));
            t.write(ByteBuffer.wrap(new byte[] {43}));
            return t;
        });
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aServerFromAnotherCaIsRefusedByTheClient(Kind kind) throws Exception {
        TestPki other = TestPki.create(tmp, "other-ca");
        Credentials stranger = other.issue(Role.READER, "reader-1");

        try (Loopback.Ends ends = shake(kind, TlsEndpoint.server(node, TlsEndpoint.ClientCertificates.REQUIRED),
                TlsEndpoint.client(stranger, ExpectedPeer.anyWithRole(Role.NODE)))) {
            assertThat(ends.client().failure()).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageStartingWith("/127.0.0.1:")
                    .hasMessageContaining(": TLS handshake failed: refused the peer: certificate CN=node-1 was issued by "
                            + IdentityCertificates.subjectOf(pki.ca.certificate()) + ", not by this cluster's CA "
                            + IdentityCertificates.subjectOf(other.ca.certificate()));
            assertThat(ends.server().failure()).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageContaining("refused our certificate CN=node-1");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void anExpiredClientCertificateIsRefusedAndTheClientLearnsWhy(Kind kind) throws Exception {
        Credentials expired = pki.issueExpired(Role.READER, "old-reader");
        String expiry = expired.certificate().getNotAfter().toInstant().toString();

        try (Loopback.Ends ends = shake(kind, TlsEndpoint.server(node, TlsEndpoint.ClientCertificates.REQUIRED),
                TlsEndpoint.client(expired, ExpectedPeer.exactly(node.identity())))) {
            assertThat(ends.server().failure()).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageEndingWith(": TLS handshake failed: refused the peer: certificate CN=old-reader expired at " + expiry);
            // The client finished its side before the server judged its certificate: it hears on its first read.
            assertThat(ends.client().failure()).isInstanceOf(SSLHandshakeException.class)
                    .hasMessageContaining("refused our certificate CN=old-reader")
                    .hasMessageEndingWith(": certificate CN=old-reader expired at " + expiry);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void anExpiredServerCertificateIsRefusedByTheClient(Kind kind) throws Exception {
        Credentials expired = pki.issueExpired(Role.NODE, "old-node");
        Credentials reader = pki.issue(Role.READER, "reader-1");

        try (Loopback.Ends ends = shake(kind, TlsEndpoint.server(expired, TlsEndpoint.ClientCertificates.REQUIRED),
                TlsEndpoint.client(reader, ExpectedPeer.anyWithRole(Role.NODE)))) {
            assertThat(ends.client().failure()).isInstanceOf(SSLHandshakeException.class).hasMessageEndingWith(
                    ": TLS handshake failed: refused the peer: certificate CN=old-node expired at "
                            + expired.certificate().getNotAfter().toInstant());
            assertThat(ends.server().failure()).isNotNull();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aClientThatReachedAnotherNodeRefusesIt(Kind kind) throws Exception {
        Credentials reader = pki.issue(Role.READER, "reader-1");

        try (Loopback.Ends ends = shake(kind, TlsEndpoint.server(node, TlsEndpoint.ClientCertificates.REQUIRED),
                TlsEndpoint.client(reader, ExpectedPeer.exactly(new Identity("node-2", Role.NODE))))) {
            assertThat(ends.client().failure()).isInstanceOf(SSLHandshakeException.class).hasMessageEndingWith(
                    ": TLS handshake failed: refused the peer: certificate CN=node-1 is node node-1, expected node node-2");
            assertThat(ends.server().failure()).hasMessageContaining("refused our certificate CN=node-1");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aClientWhoseRoleTheClientDidNotExpectIsRefused(Kind kind) throws Exception {
        Credentials writer = pki.issue(Role.WRITER, "writer-1");
        Credentials reader = pki.issue(Role.READER, "reader-1");

        // A writer's credentials serving a port a client took for a node's.
        try (Loopback.Ends ends = shake(kind, TlsEndpoint.server(writer, TlsEndpoint.ClientCertificates.REQUIRED),
                TlsEndpoint.client(reader, ExpectedPeer.anyWithRole(Role.NODE)))) {
            assertThat(ends.client().failure()).hasMessageEndingWith(
                    ": TLS handshake failed: refused the peer: certificate CN=writer-1 is writer writer-1, expected any node");
        }
    }
}
