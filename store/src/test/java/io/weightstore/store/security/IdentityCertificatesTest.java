package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificates that are not shaped as {@link IdentityCertificates} says are refused, each with its reason. */
class IdentityCertificatesTest {
    @TempDir
    Path tmp;

    private CertificateAuthority ca;
    private PrivateKey caKey;

    @BeforeEach
    void createCa() throws Exception {
        ca = CertificateAuthority.init(tmp.resolve("ca"), Duration.ofDays(10));
        caKey = KeyFiles.readPrivateKey(tmp.resolve("ca/ca.key"));
    }

    /** A certificate from the cluster CA with any subject and SAN URIs, as a careless or hostile issuer might make. */
    private X509Certificate craft(String subject, String... uris) throws Exception {
        KeyPair keys = CertificateSigner.newKeyPair();
        Instant now = Instant.now();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(ca.certificate(), BigInteger.TWO,
                Date.from(now.minusSeconds(60)), Date.from(now.plusSeconds(3600)), new X500Principal(subject),
                keys.getPublic());
        if (uris.length > 0) {
            GeneralName[] names = new GeneralName[uris.length];
            for (int i = 0; i < uris.length; i++) {
                names[i] = new GeneralName(GeneralName.uniformResourceIdentifier, uris[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        }
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKey)));
    }

    @Test
    void readsTheNameFromTheCnAndTheRoleFromTheSanUri() throws Exception {
        assertThat(IdentityCertificates.identityOf(craft("CN=w1", "weightstore:role/writer")))
                .isEqualTo(new Identity("w1", Role.WRITER));
        assertThat(IdentityCertificates.identityOf(craft("CN=m, O=somewhere", "https://example.com/x", "weightstore:role/master")))
                .isEqualTo(new Identity("m", Role.MASTER));
    }

    @Test
    void refusesZeroOrSeveralRoles() throws Exception {
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=r")))
                .isInstanceOf(CertificateException.class)
                .hasMessage("certificate CN=r carries no weightstore role (a SAN URI weightstore:role/<role>)");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=r", "weightstore:role/reader", "weightstore:role/admin")))
                .isInstanceOf(CertificateException.class)
                .hasMessage("certificate CN=r carries 2 roles [weightstore:role/reader, weightstore:role/admin];"
                        + " exactly one is allowed");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=r", "weightstore:role/reader", "weightstore:role/reader")))
                .hasMessageContaining("carries 2 roles");
    }

    @Test
    void refusesUnknownRolesAndAmbiguousOrBadNames() throws Exception {
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=r", "weightstore:role/root")))
                .hasMessage("certificate CN=r carries unknown role weightstore:role/root;"
                        + " known roles: master, node, writer, reader, admin");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=a, CN=b", "weightstore:role/node")))
                .hasMessage("certificate CN=a,CN=b must have exactly one CN, found 2");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("O=nobody", "weightstore:role/node")))
                .hasMessage("certificate O=nobody must have exactly one CN, found 0");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=a+OU=b", "weightstore:role/node")))
                .hasMessageContaining("must have exactly one CN");
        assertThatThrownBy(() -> IdentityCertificates.identityOf(craft("CN=../etc", "weightstore:role/node")))
                .hasMessageStartingWith("certificate CN=../etc: name=../etc must match");
    }

    @Test
    void aCaCertificateCarriesNoIdentity() {
        assertThatThrownBy(() -> IdentityCertificates.identityOf(ca.certificate()))
                .hasMessageContaining("carries no weightstore role");
    }
}
