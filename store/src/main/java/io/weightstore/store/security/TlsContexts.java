package io.weightstore.store.security;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;

/** JDK TLS contexts and parameters for mutual TLS 1.3 inside the cluster. */
final class TlsContexts {
    static final String PROTOCOL = "TLSv1.3";

    private TlsContexts() {}

    static SSLContext context(PrivateKey key, X509Certificate certificate, X509Certificate ca, ExpectedPeer expected)
            throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance(PROTOCOL);
        context.init(keyManagers(key, certificate), new TrustManager[] {new ClusterTrustManager(ca, expected)},
                new SecureRandom());
        return context;
    }

    /** A client context with no identity of its own, trusting the cluster CA for {@code expected} alone. */
    static SSLContext trustOnly(X509Certificate ca, ExpectedPeer expected) throws GeneralSecurityException {
        SSLContext context = SSLContext.getInstance(PROTOCOL);
        context.init(null, new TrustManager[] {new ClusterTrustManager(ca, expected)}, new SecureRandom());
        return context;
    }

    /** Key managers over an in-memory key store; the store's password guards nothing, as it is never written. */
    static KeyManager[] keyManagers(PrivateKey key, X509Certificate certificate) throws GeneralSecurityException {
        char[] password = new char[0];
        KeyStore store = emptyKeyStore();
        store.setKeyEntry("identity", key, password, new X509Certificate[] {certificate});
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(store, password);
        return factory.getKeyManagers();
    }

    static KeyStore emptyKeyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException("cannot create an empty key store", e);
        }
        return store;
    }

    /** TLS 1.3 only, and a client certificate required. */
    static SSLParameters serverParameters() {
        SSLParameters parameters = new SSLParameters();
        parameters.setProtocols(new String[] {PROTOCOL});
        parameters.setNeedClientAuth(true);
        return parameters;
    }

    /** TLS 1.3 only; no host-name check, as {@link ExpectedPeer} replaces it. */
    static SSLParameters clientParameters() {
        SSLParameters parameters = new SSLParameters();
        parameters.setProtocols(new String[] {PROTOCOL});
        return parameters;
    }
}
