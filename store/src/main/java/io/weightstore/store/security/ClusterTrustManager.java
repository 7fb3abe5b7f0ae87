package io.weightstore.store.security;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Accepts a peer only when its certificate was issued by the cluster CA, is valid now, and carries exactly one
 * weightstore identity (and, when given, the expected one). Each refusal says which certificate and why, e.g.
 * {@code certificate CN=node-1 expired at 2026-01-01T00:00:00Z}; JSSE hands that message to the
 * {@code SSLHandshakeException} on this side.
 *
 * <p>After those checks the JDK's PKIX validator, anchored at the cluster CA alone, checks the rest (signatures
 * along the chain, key usages, constraints). Host names are deliberately not verified, even when a TLS stack asks
 * for it (gRPC does): peers are reached by node id, and {@link ExpectedPeer} checks that instead.
 */
final class ClusterTrustManager extends X509ExtendedTrustManager {
    private final X509Certificate ca;
    private final ExpectedPeer expected;
    private final X509TrustManager pkix;

    /** {@code expected} null accepts any identity the cluster CA issued. */
    ClusterTrustManager(X509Certificate ca, ExpectedPeer expected) throws GeneralSecurityException {
        this.ca = ca;
        this.expected = expected;
        this.pkix = pkixAnchoredAt(ca);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
        pkix.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
        pkix.checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[] {ca};
    }

    private void check(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("the peer presented no certificate; mutual TLS needs one on both ends");
        }
        X509Certificate leaf = chain[0];
        String subject = IdentityCertificates.subjectOf(leaf);
        Instant now = Instant.now();
        String validity = validityProblem(ca, now);
        if (validity != null) {
            throw new CertificateException("this cluster's CA certificate " + validity);
        }
        if (!leaf.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
            throw new CertificateException("certificate " + subject + " was issued by "
                    + IdentityCertificates.issuerOf(leaf) + ", not by this cluster's CA "
                    + IdentityCertificates.subjectOf(ca));
        }
        try {
            leaf.verify(ca.getPublicKey());
        } catch (GeneralSecurityException e) {
            throw new CertificateException("certificate " + subject + " names this cluster's CA "
                    + IdentityCertificates.subjectOf(ca) + " as issuer, but its signature does not verify with that"
                    + " CA's key (" + e.getClass().getSimpleName() + "): it comes from another CA of the same name");
        }
        validity = validityProblem(leaf, now);
        if (validity != null) {
            throw new CertificateException("certificate " + validity);
        }
        Identity identity = IdentityCertificates.identityOf(leaf);
        if (expected != null && !expected.matches(identity)) {
            throw new CertificateException("certificate " + subject + " is " + identity + ", expected " + expected);
        }
    }

    /** Why {@code certificate} is not valid at {@code now}, as "CN=x expired at …", or null when it is. */
    static String validityProblem(X509Certificate certificate, Instant now) {
        Instant notBefore = certificate.getNotBefore().toInstant();
        Instant notAfter = certificate.getNotAfter().toInstant();
        String subject = IdentityCertificates.subjectOf(certificate);
        if (now.isAfter(notAfter)) {
            return subject + " expired at " + notAfter;
        }
        if (now.isBefore(notBefore)) {
            return subject + " is not valid before " + notBefore;
        }
        return null;
    }

    private static X509TrustManager pkixAnchoredAt(X509Certificate ca) throws GeneralSecurityException {
        KeyStore anchors = TlsContexts.emptyKeyStore();
        anchors.setCertificateEntry("cluster-ca", ca);
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(anchors);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager x509) {
                return x509;
            }
        }
        throw new GeneralSecurityException("the PKIX trust manager factory made no X509TrustManager");
    }
}
