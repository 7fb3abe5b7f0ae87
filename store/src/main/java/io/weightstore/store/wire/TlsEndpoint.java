package io.weightstore.store.wire;

import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.ExpectedPeer;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;

/**
 * One end's side of data-plane TLS: its credential (a certificate, or for a token client none), the
 * JDK context made from it, whether it is
 * the client, and what it asks of the peer. Make one per role (a node's server end, a client's end
 * per node it dials) and share it across connections: building a context costs far more than a
 * handshake.
 *
 * <p>Sessions are never resumed (engines get no peer host to look a session up by), so every
 * connection runs a full mutual handshake and checks the peer's certificate as it is now.
 */
public final class TlsEndpoint {
    /** Whether a server asks its clients for a certificate. Either way, one that is presented must pass every check. */
    public enum ClientCertificates {
        REQUIRED,
        /** A client may connect without one; the server then finds no peer identity in the session. */
        OPTIONAL
    }

    private final Authentication authentication;
    private final SSLContext context;
    private final boolean client;
    private final ClientCertificates clientCertificates;
    private final List<String> cipherSuites;

    private TlsEndpoint(Authentication authentication, SSLContext context, boolean client, ClientCertificates clientCertificates,
            List<String> cipherSuites) {
        this.authentication = authentication;
        this.context = context;
        this.client = client;
        this.clientCertificates = clientCertificates;
        this.cipherSuites = List.copyOf(cipherSuites);
    }

    /** The dialing end: the handshake fails unless the server proves to be {@code server}. */
    public static TlsEndpoint client(Credentials credentials, ExpectedPeer server) throws GeneralSecurityException {
        return client(new Authentication.Certificate(credentials), server);
    }

    /** As {@link #client(Credentials, ExpectedPeer)}, also for a token client, which dials without a certificate. */
    public static TlsEndpoint client(Authentication authentication, ExpectedPeer server) throws GeneralSecurityException {
        return new TlsEndpoint(authentication, authentication.sslContext(server), true, ClientCertificates.REQUIRED, List.of());
    }

    /** The accepting end, taking any identity the cluster CA issued; who may do what is checked per request. */
    public static TlsEndpoint server(Credentials credentials, ClientCertificates clientCertificates)
            throws GeneralSecurityException {
        return new TlsEndpoint(new Authentication.Certificate(credentials), credentials.sslContext(), false, clientCertificates,
                List.of());
    }

    /**
     * This end offering only {@code suites} (TLS 1.3 names such as {@code TLS_AES_128_GCM_SHA256}), in
     * order of preference; without it the JDK's defaults apply.
     */
    public TlsEndpoint withCipherSuites(String... suites) {
        if (suites.length == 0) {
            throw new IllegalArgumentException("no cipher suites given; leave the JDK's defaults by not calling withCipherSuites");
        }
        return new TlsEndpoint(authentication, context, client, clientCertificates, List.of(suites));
    }

    /** A failed handshake, explained with what this end knows of its own certificate. */
    SSLHandshakeException explain(IOException failure) {
        return authentication.explain(failure);
    }

    SSLEngine newEngine() {
        SSLEngine engine = context.createSSLEngine();
        // The mode first: setting it afterwards would put back the mode's default suites and protocols.
        engine.setUseClientMode(client);
        SSLParameters parameters = client ? Credentials.clientParameters() : Credentials.serverParameters();
        if (!client && clientCertificates == ClientCertificates.OPTIONAL) {
            parameters.setWantClientAuth(true);
        }
        if (!cipherSuites.isEmpty()) {
            parameters.setCipherSuites(cipherSuites.toArray(String[]::new));
        }
        engine.setSSLParameters(parameters);
        return engine;
    }

    @Override
    public String toString() {
        return "TlsEndpoint[" + (client ? "client" : "server, client certificates " + clientCertificates) + ", "
                + switch (authentication) {
                    case Authentication.Certificate c -> c.credentials().identity().toString();
                    default -> "no certificate";
                } + (cipherSuites.isEmpty() ? "" : ", suites " + cipherSuites) + "]";
    }
}
