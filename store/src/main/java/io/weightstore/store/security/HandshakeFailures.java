package io.weightstore.store.security;

import java.io.IOException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Turns a failed TLS handshake into a message a person can act on. The side that refused a certificate has the
 * reason from {@link ClusterTrustManager}; the other side receives at best an alert such as
 * {@code certificate_unknown}, or only a broken connection when the refusal arrived while it was still writing, so
 * this adds what it knows of its own certificate.
 */
final class HandshakeFailures {
    private static final String ALERT = "Received fatal alert: ";

    private HandshakeFailures() {}

    static SSLHandshakeException explain(IOException failure, X509Certificate own, X509Certificate ca) {
        String message = failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
        CertificateException refused = certificateCause(failure);
        int alertAt = message.indexOf(ALERT);
        String explained;
        if (refused != null) {
            explained = "refused the peer: " + refused.getMessage();
        } else if (alertAt >= 0) {
            explained = refusedByPeer(message.substring(alertAt + ALERT.length()).trim(), own, ca);
        } else if (message.contains("Empty client certificate chain") || message.contains("Empty server certificate chain")) {
            explained = "the peer presented no certificate; mutual TLS needs credentials on both ends";
        } else if (!(failure instanceof SSLException)) {
            explained = "the connection broke during the handshake (" + message + "); the peer may have refused "
                    + ours(own) + ": " + likelyReason(own, ca);
        } else {
            explained = message;
        }
        SSLHandshakeException explainedFailure = new SSLHandshakeException("TLS handshake failed: " + explained);
        explainedFailure.initCause(failure);
        return explainedFailure;
    }

    private static CertificateException certificateCause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof CertificateException c) {
                return c;
            }
        }
        return null;
    }

    private static String refusedByPeer(String alert, X509Certificate own, X509Certificate ca) {
        return switch (alert) {
            case "certificate_required" -> "the peer requires a client certificate and got none";
            case "bad_certificate", "certificate_unknown", "unknown_ca", "certificate_expired" ->
                    "the peer refused " + ours(own) + " (alert " + alert + "): " + likelyReason(own, ca);
            default -> "the peer ended the handshake with alert " + alert;
        };
    }

    private static String ours(X509Certificate own) {
        if (own == null) {
            return "our connection without a certificate (a token's)";
        }
        return "our certificate " + IdentityCertificates.subjectOf(own) + " (issued by "
                + IdentityCertificates.issuerOf(own) + ")";
    }

    private static String likelyReason(X509Certificate own, X509Certificate ca) {
        if (own == null) {
            return "the peer may require a client certificate, or not be of our CA " + IdentityCertificates.subjectOf(ca);
        }
        String expired = ClusterTrustManager.validityProblem(own, Instant.now());
        return expired != null ? "certificate " + expired
                : "the peer does not trust our CA " + IdentityCertificates.subjectOf(ca) + ", or expected another identity";
    }
}
