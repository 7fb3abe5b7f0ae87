package io.weightstore.store.security;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreException.Code;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * How a process proves who it is to the cluster and checks that it talks to the cluster's own
 * servers. A credentials directory holds the cluster's {@code ca.crt} and either a certificate
 * ({@code identity.crt} and {@code identity.key}, for mutual TLS) or a {@code token} file (a bearer
 * token bound to a role, sent only inside TLS).
 */
public sealed interface Authentication {
    /** The file of a credentials directory that holds a bearer token. */
    String TOKEN_FILE = "token";

    /** Plaintext and no identity: only for a cluster whose servers were started with {@code --insecure}. */
    record Insecure() implements Authentication {}

    /** Mutual TLS with a certificate of the cluster's CA. */
    record Certificate(Credentials credentials) implements Authentication {}

    /** TLS that checks the servers against {@code clusterCa}, and a bearer token that names the caller's role. */
    record BearerToken(Token token, X509Certificate clusterCa) implements Authentication {
        @Override
        public String toString() {
            return "BearerToken[token=<redacted>, ca=" + IdentityCertificates.subjectOf(clusterCa) + "]";
        }
    }

    static Authentication insecure() {
        return new Insecure();
    }

    /** What {@code dir} holds: a certificate if there is one, else a token file; both need the cluster's {@code ca.crt}. */
    static Authentication load(Path dir) throws StoreException {
        if (Files.exists(dir.resolve(Credentials.CERT_FILE))) {
            return new Certificate(Credentials.load(dir));
        }
        try {
            X509Certificate ca = CertificateFiles.read(dir.resolve(Credentials.CA_CERT_FILE));
            String token = new String(SecureFiles.readPrivate(dir.resolve(TOKEN_FILE)), StandardCharsets.UTF_8).strip();
            return new BearerToken(Tokens.parse(token), ca);
        } catch (NoSuchFileException e) {
            throw new StoreException(Code.NOT_FOUND, "credentials " + dir + ": " + e.getFile() + " is missing; a credentials"
                    + " directory holds ca.crt and either identity.crt and identity.key, or a token file", e);
        } catch (IOException | GeneralSecurityException e) {
            throw new StoreException(Code.IO, "credentials " + dir + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            // Not a token of ours; the directory may have come from $WEIGHTSTORE_CREDENTIALS, so say which file.
            throw new StoreException(Code.INVALID_ARGUMENT, "credentials " + dir + ": " + dir.resolve(TOKEN_FILE) + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * The JDK TLS context for dialing a cluster server that must prove to be {@code server}: with the
     * certificate as the client's, or, for a token, with none (the token then travels inside).
     */
    default SSLContext sslContext(ExpectedPeer server) throws GeneralSecurityException {
        return switch (this) {
            case Insecure i -> throw new IllegalStateException("an insecure client speaks no TLS");
            case Certificate c -> c.credentials().sslContext(server);
            case BearerToken t -> TlsContexts.trustOnly(t.clusterCa(), server);
        };
    }

    /** A failed handshake, explained with what this end knows of its own certificate. */
    default SSLHandshakeException explain(IOException failure) {
        return switch (this) {
            case Insecure i -> {
                SSLHandshakeException plain = new SSLHandshakeException(String.valueOf(failure.getMessage()));
                plain.initCause(failure);
                yield plain;
            }
            case Certificate c -> c.credentials().explain(failure);
            case BearerToken t -> HandshakeFailures.explain(failure, null, t.clusterCa());
        };
    }

    /** The TLS context a gRPC client uses to reach a master; null for {@link Insecure}. */
    default SslContext grpcClientContext() throws StoreException {
        try {
            return switch (this) {
                case Insecure i -> null;
                case Certificate c -> c.credentials().grpcClientContext(ExpectedPeer.anyWithRole(Role.MASTER));
                case BearerToken t -> GrpcSslContexts.configure(SslContextBuilder.forClient())
                        .trustManager(new ClusterTrustManager(t.clusterCa(), ExpectedPeer.anyWithRole(Role.MASTER)))
                        .protocols(TlsContexts.PROTOCOL).build();
            };
        } catch (GeneralSecurityException | SSLException e) {
            throw new StoreException(Code.IO, "cannot set up TLS to the master: " + e.getMessage(), e);
        }
    }
}
