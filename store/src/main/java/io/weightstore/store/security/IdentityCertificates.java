package io.weightstore.store.security;

import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1String;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;

/**
 * How an {@link Identity} is carried in a certificate: the subject is exactly {@code CN=<name>}, and the role is
 * one subject-alternative-name URI {@code weightstore:role/<role>}.
 *
 * <p>The role is a SAN URI rather than an OU because a subject attribute is free text that other CAs fill with
 * their own meanings, may repeat, and is compared through string forms whose escaping and order differ between
 * libraries; a URI in its own scheme is typed, cannot be mistaken for a host name SAN, and is read back as one
 * exact string. A certificate with no role URI, or with more than one, names no role and is refused.
 */
public final class IdentityCertificates {
    /** The scheme and path that mark a SAN URI as a weightstore role. */
    public static final String ROLE_URI_PREFIX = "weightstore:role/";
    /** The SAN type number X.509 gives a URI ({@code uniformResourceIdentifier}). */
    static final int SAN_URI = 6;

    private IdentityCertificates() {}

    static String roleUri(Role role) {
        return ROLE_URI_PREFIX + role.label();
    }

    /** The identity {@code certificate} carries, or why it carries none. */
    public static Identity identityOf(X509Certificate certificate) throws CertificateException {
        String subject = subjectOf(certificate);
        List<String> roles = roleUris(certificate);
        if (roles.size() != 1) {
            throw new CertificateException("certificate " + subject + (roles.isEmpty()
                    ? " carries no weightstore role (a SAN URI " + ROLE_URI_PREFIX + "<role>)"
                    : " carries " + roles.size() + " roles " + roles + "; exactly one is allowed"));
        }
        Role role;
        try {
            role = Role.parse(roles.getFirst().substring(ROLE_URI_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            throw new CertificateException("certificate " + subject + " carries unknown role " + roles.getFirst()
                    + "; known roles: " + Role.labels());
        }
        try {
            return new Identity(commonName(certificate, subject), role);
        } catch (IllegalArgumentException e) {
            throw new CertificateException("certificate " + subject + ": " + e.getMessage());
        }
    }

    /** The subject as RFC 2253 text, e.g. {@code CN=node-1}, for messages. */
    public static String subjectOf(X509Certificate certificate) {
        return certificate.getSubjectX500Principal().getName(X500Principal.RFC2253);
    }

    /** The issuer as RFC 2253 text, for messages. */
    public static String issuerOf(X509Certificate certificate) {
        return certificate.getIssuerX500Principal().getName(X500Principal.RFC2253);
    }

    private static List<String> roleUris(X509Certificate certificate) throws CertificateParsingException {
        Collection<List<?>> names = certificate.getSubjectAlternativeNames();
        List<String> roles = new ArrayList<>();
        if (names != null) {
            for (List<?> name : names) {
                if (name.get(0) instanceof Integer type && type == SAN_URI
                        && name.get(1) instanceof String uri && uri.startsWith(ROLE_URI_PREFIX)) {
                    roles.add(uri);
                }
            }
        }
        return roles;
    }

    /** The subject's one CN; several CNs, or one in a multi-valued RDN, would make the name ambiguous. */
    private static String commonName(X509Certificate certificate, String subject) throws CertificateException {
        X500Name name = X500Name.getInstance(certificate.getSubjectX500Principal().getEncoded());
        RDN[] cns = name.getRDNs(BCStyle.CN);
        if (cns.length != 1 || cns[0].isMultiValued()
                || !(cns[0].getFirst().getValue() instanceof ASN1String cn)) {
            throw new CertificateException("certificate " + subject + " must have exactly one CN, found " + cns.length);
        }
        return cn.getString();
    }
}
