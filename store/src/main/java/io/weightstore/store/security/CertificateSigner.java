package io.weightstore.store.security;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes the two kinds of certificate the cluster has: its CA's and identities'. Keys are EC P-256 and
 * signatures ECDSA with SHA-256, which every TLS 1.3 stack supports and which keeps handshakes cheap.
 */
final class CertificateSigner {
    private static final String SIGNATURE = "SHA256withECDSA";
    private static final Pattern DNS_NAME =
            Pattern.compile("(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");
    private static final SecureRandom RANDOM = new SecureRandom();

    private CertificateSigner() {}

    static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        return generator.generateKeyPair();
    }

    /** A self-signed CA that may sign identities but no further CAs (path length 0). */
    static X509Certificate selfSignedCa(KeyPair keys, String commonName, Instant notBefore, Instant notAfter)
            throws GeneralSecurityException {
        X500Principal subject = principal(commonName);
        X509v3CertificateBuilder builder =
                new JcaX509v3CertificateBuilder(subject, serial(), Date.from(notBefore), Date.from(notAfter), subject,
                        keys.getPublic());
        try {
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(keys.getPublic()));
        } catch (CertIOException e) {
            throw new GeneralSecurityException("cannot encode CA extensions", e);
        }
        return sign(builder, keys.getPrivate());
    }

    /**
     * An identity certificate: subject {@code CN=<name>}, the role as its one SAN URI, {@code hosts} as DNS or IP
     * SANs for tools that check host names. Both TLS client and server use are allowed, since masters and nodes
     * are both; what a peer may do is decided by its role, not by key usage.
     */
    static X509Certificate identity(X509Certificate ca, PrivateKey caKey, Identity identity, PublicKey key,
            Instant notBefore, Instant notAfter, List<String> hosts) throws GeneralSecurityException {
        List<GeneralName> names = new ArrayList<>();
        names.add(new GeneralName(GeneralName.uniformResourceIdentifier, IdentityCertificates.roleUri(identity.role())));
        for (String host : hosts) {
            names.add(hostName(host));
        }
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca, serial(), Date.from(notBefore),
                Date.from(notAfter), principal(identity.name()), key);
        try {
            JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(GeneralName[]::new)))
                    .addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(key))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            extensions.createAuthorityKeyIdentifier(ca));
        } catch (CertIOException e) {
            throw new GeneralSecurityException("cannot encode the extensions of " + identity, e);
        }
        return sign(builder, caKey);
    }

    /** A host as an IP SAN when it is an address literal (no DNS lookup), else as a DNS SAN; no wildcards. */
    private static GeneralName hostName(String host) {
        try {
            InetAddress.ofLiteral(host);
            return new GeneralName(GeneralName.iPAddress, host);
        } catch (IllegalArgumentException notAnAddress) {
            if (!DNS_NAME.matcher(host).matches()) {
                throw new IllegalArgumentException("host=" + host + " is neither an IP address nor a DNS name");
            }
            return new GeneralName(GeneralName.dNSName, host);
        }
    }

    private static X500Principal principal(String commonName) {
        X500Name name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
        try {
            return new X500Principal(name.getEncoded());
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode CN=" + commonName, e);
        }
    }

    /** 128 random bits, so serials never collide without keeping a counter next to the CA. */
    private static BigInteger serial() {
        return new BigInteger(128, RANDOM).setBit(127);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder(SIGNATURE).build(key)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException("cannot sign with " + SIGNATURE, e);
        }
    }
}
