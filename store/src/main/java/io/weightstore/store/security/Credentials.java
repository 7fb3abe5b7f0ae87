package io.weightstore.store.security;

import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreException.Code;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * One identity's credentials, as {@link CertificateAuthority#issue} writes them: {@code ca.crt},
 * {@code identity.crt} and {@code identity.key} in one directory. They give mutual TLS 1.3 contexts for JDK sockets
 * and for gRPC, both trusting the cluster CA alone, and read the identity a peer proved in a handshake.
 *
 * <p>Servers and clients take the directory from {@code --credentials DIR}, else from {@value #ENVIRONMENT}.
 */
public final class Credentials {
    public static final String CA_CERT_FILE = "ca.crt";
    public static final String CERT_FILE = "identity.crt";
    public static final String KEY_FILE = "identity.key";
    public static final String ENVIRONMENT = "WEIGHTSTORE_CREDENTIALS";

    private final X509Certificate ca;
    private final X509Certificate certificate;
    private final PrivateKey key;
    private final Identity identity;

    private Credentials(X509Certificate ca, X509Certificate certificate, PrivateKey key, Identity identity) {
        this.ca = ca;
        this.certificate = certificate;
        this.key = key;
        this.identity = identity;
    }

    /**
     * The credentials in {@code dir}, checked to be usable now: the key is 0600 and belongs to the certificate,
     * which the CA next to it issued, and neither has expired. A server that would fail every handshake refuses
     * to start instead.
     */
    public static Credentials load(Path dir) throws StoreException {
        Credentials credentials = read(dir);
        Instant now = Instant.now();
        for (X509Certificate c : new X509Certificate[] {credentials.ca, credentials.certificate}) {
            String problem = ClusterTrustManager.validityProblem(c, now);
            if (problem != null) {
                throw new StoreException(Code.FAILED_PRECONDITION, "credentials " + dir + ": certificate " + problem
                        + "; issue new credentials with weightstore cert issue");
            }
        }
        return credentials;
    }

    /** {@link #load} without the validity check, so tests can present expired certificates. */
    static Credentials read(Path dir) throws StoreException {
        if (!Files.isDirectory(dir)) {
            throw new StoreException(Code.NOT_FOUND, "credentials " + dir + " is not a directory; make one with"
                    + " weightstore cert issue");
        }
        try {
            X509Certificate ca = CertificateFiles.read(dir.resolve(CA_CERT_FILE));
            X509Certificate certificate = CertificateFiles.read(dir.resolve(CERT_FILE));
            PrivateKey key = KeyFiles.readPrivateKey(dir.resolve(KEY_FILE));
            KeyFiles.requireMatch(certificate, key, dir.resolve(CERT_FILE), dir.resolve(KEY_FILE));
            if (!certificate.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
                throw new GeneralSecurityException(CERT_FILE + " (" + IdentityCertificates.subjectOf(certificate)
                        + ") was issued by " + IdentityCertificates.issuerOf(certificate) + ", not by " + CA_CERT_FILE
                        + " (" + IdentityCertificates.subjectOf(ca) + ")");
            }
            certificate.verify(ca.getPublicKey());
            return new Credentials(ca, certificate, key, IdentityCertificates.identityOf(certificate));
        } catch (NoSuchFileException e) {
            throw new StoreException(Code.NOT_FOUND, "credentials " + dir + ": " + e.getFile() + " is missing", e);
        } catch (IOException | GeneralSecurityException e) {
            throw new StoreException(Code.IO, "credentials " + dir + ": " + e.getMessage(), e);
        }
    }

    public Identity identity() {
        return identity;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    public X509Certificate caCertificate() {
        return ca;
    }

    /**
     * A TLS 1.3 context for servers and clients that accepts any identity the cluster CA issued; servers check
     * the peer's role per request with {@link #peerIdentity}. Apply {@link #serverParameters} or
     * {@link #clientParameters} to each socket or engine.
     */
    public SSLContext sslContext() throws GeneralSecurityException {
        return TlsContexts.context(key, certificate, ca, null);
    }

    /** A client context whose handshake also fails unless the server proves to be {@code server}. */
    public SSLContext sslContext(ExpectedPeer server) throws GeneralSecurityException {
        return TlsContexts.context(key, certificate, ca, server);
    }

    /** TLS 1.3 only, client certificate required. */
    public static SSLParameters serverParameters() {
        return TlsContexts.serverParameters();
    }

    /** TLS 1.3 only, no host-name check: use an {@link ExpectedPeer} instead. */
    public static SSLParameters clientParameters() {
        return TlsContexts.clientParameters();
    }

    /** For {@code NettyServerBuilder.sslContext}: TLS 1.3, client certificate from the cluster CA required. */
    public SslContext grpcServerContext() throws GeneralSecurityException, SSLException {
        return GrpcTls.server(key, certificate, ca);
    }

    /** For {@code NettyChannelBuilder.sslContext}: TLS 1.3 with this identity, and the server must be {@code server}. */
    public SslContext grpcClientContext(ExpectedPeer server) throws GeneralSecurityException, SSLException {
        return GrpcTls.client(key, certificate, ca, server);
    }

    /** The identity the peer proved in the handshake of {@code session}. */
    public static Identity peerIdentity(SSLSession session) throws SSLPeerUnverifiedException {
        Certificate[] chain = session.getPeerCertificates();
        if (!(chain[0] instanceof X509Certificate leaf)) {
            throw new SSLPeerUnverifiedException("the peer presented a " + chain[0].getType() + " certificate, not X.509");
        }
        // Checked at every use, not only at the handshake: a connection kept busy outlives the certificate it was made with.
        String validity = ClusterTrustManager.validityProblem(leaf, Instant.now());
        if (validity != null) {
            throw new SSLPeerUnverifiedException("certificate " + validity + ", since this connection was made");
        }
        try {
            return IdentityCertificates.identityOf(leaf);
        } catch (CertificateException e) {
            throw new SSLPeerUnverifiedException(e.getMessage());
        }
    }

    /** The peer's identity, if it is {@code expected}; a caller that reached the wrong peer gets a clear refusal. */
    public static Identity expectPeer(SSLSession session, ExpectedPeer expected) throws SSLPeerUnverifiedException {
        Identity presented = peerIdentity(session);
        if (!expected.matches(presented)) {
            throw new SSLPeerUnverifiedException("peer " + session.getPeerHost() + ":" + session.getPeerPort()
                    + " is " + presented + ", expected " + expected);
        }
        return presented;
    }

    /**
     * {@code failure} from a handshake with a message that says why, naming certificates and reasons. Give it
     * failures of the handshake and of the first read after it (in TLS 1.3 a client learns only then that the
     * server refused its certificate), not later ones.
     */
    public SSLHandshakeException explain(IOException failure) {
        return HandshakeFailures.explain(failure, certificate, ca);
    }

    @Override
    public String toString() {
        return "Credentials[" + identity + ", issued by " + IdentityCertificates.issuerOf(certificate) + "]";
    }
}
