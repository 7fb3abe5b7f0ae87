package io.weightstore.store.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateAuthorityTest {
    @TempDir
    Path tmp;

    /** The mode; certificates may lose their read bits to the umask, but nothing may gain a bit. */
    private static String mode(Path path) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    @Test
    void initWritesAPrivateCaAndRefusesToOverwriteIt() throws Exception {
        Path dir = tmp.resolve("deep/ca");
        CertificateAuthority ca = CertificateAuthority.init(dir, Duration.ofDays(30));

        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(tmp.resolve("deep"))).isEqualTo("rwx------");
        assertThat(mode(dir.resolve("ca.key"))).isEqualTo("rw-------");
        assertThat(mode(dir.resolve("ca.crt"))).matches("rw-r?-{2}r?-{2}");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("ca.crt", "ca.key");
        }
        X509Certificate cert = ca.certificate();
        assertThat(IdentityCertificates.subjectOf(cert)).matches("CN=weightstore cluster CA [0-9a-f]{8}");
        assertThat(cert.getBasicConstraints()).isZero();
        assertThat(Duration.between(cert.getNotBefore().toInstant(), cert.getNotAfter().toInstant()))
                .isEqualTo(Duration.ofDays(30).plus(CertificateAuthority.CLOCK_SKEW));

        byte[] keyBefore = Files.readAllBytes(dir.resolve("ca.key"));
        assertThatThrownBy(() -> CertificateAuthority.init(dir, Duration.ofDays(30)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("already holds a CA (ca.crt, ca.key); refusing to overwrite it")
                .extracting(e -> ((StoreException) e).code()).isEqualTo(StoreException.Code.ALREADY_EXISTS);
        assertThat(Files.readAllBytes(dir.resolve("ca.key"))).isEqualTo(keyBefore);
        assertThat(CertificateAuthority.open(dir).certificate()).isEqualTo(cert);
    }

    @Test
    void issueWritesCredentialsThatLoadAndCarryTheIdentity() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"));
        assertThat(Duration.between(Instant.now(), ca.certificate().getNotAfter().toInstant()))
                .isBetween(Duration.ofDays(3650).minusMinutes(1), Duration.ofDays(3650));
        Path out = tmp.resolve("creds/node-1");
        X509Certificate issued = ca.issue(Role.NODE, "node-1", out, Duration.ofDays(7), List.of("10.0.0.7", "node-1.local"));

        assertThat(mode(out)).isEqualTo("rwx------");
        assertThat(mode(out.resolve("identity.key"))).isEqualTo("rw-------");
        assertThat(mode(out.resolve("identity.crt"))).matches("rw-r?-{2}r?-{2}");
        assertThat(Files.readAllBytes(out.resolve("ca.crt"))).isEqualTo(Files.readAllBytes(tmp.resolve("ca/ca.crt")));
        assertThat(Files.readString(out.resolve("identity.key"), StandardCharsets.US_ASCII))
                .startsWith("-----BEGIN PRIVATE KEY-----\n");

        assertThat(IdentityCertificates.subjectOf(issued)).isEqualTo("CN=node-1");
        assertThat(issued.getSubjectAlternativeNames().stream().map(n -> (Object) n.get(1)))
                .containsExactly("weightstore:role/node", "10.0.0.7", "node-1.local");
        assertThat(issued.getExtendedKeyUsage()).containsExactlyInAnyOrder("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(issued.getBasicConstraints()).isEqualTo(-1);
        issued.verify(ca.certificate().getPublicKey());

        Credentials credentials = Credentials.load(out);
        assertThat(credentials.identity()).isEqualTo(new Identity("node-1", Role.NODE));
        assertThat(credentials.certificate()).isEqualTo(issued);
        assertThat(credentials.toString()).isEqualTo("Credentials[node node-1, issued by "
                + IdentityCertificates.subjectOf(ca.certificate()) + "]");
    }

    @Test
    void issueRefusesExistingCredentialsUnlessReplacing() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"), CertificateAuthority.DEFAULT_VALIDITY);
        Path out = tmp.resolve("reader");
        X509Certificate first = ca.issue(Role.READER, "reader", out, Duration.ofDays(1), List.of());
        byte[] key = Files.readAllBytes(out.resolve("identity.key"));

        assertThatThrownBy(() -> ca.issue(Role.READER, "reader", out, Duration.ofDays(1), List.of()))
                .isInstanceOf(StoreException.class)
                .hasMessage(out + " already holds credentials (ca.crt, identity.crt, identity.key); refusing to overwrite them");
        assertThat(Files.readAllBytes(out.resolve("identity.key"))).isEqualTo(key);

        X509Certificate second = ca.issue(Role.WRITER, "reader", out, Duration.ofDays(1), List.of(), true);
        assertThat(second).isNotEqualTo(first);
        assertThat(Files.readAllBytes(out.resolve("identity.key"))).isNotEqualTo(key);
        assertThat(mode(out.resolve("identity.key"))).isEqualTo("rw-------");
        assertThat(Credentials.load(out).identity().role()).isEqualTo(Role.WRITER);
        try (var files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("ca.crt", "identity.crt", "identity.key");
        }
    }

    @Test
    void issueChecksItsArguments() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"), Duration.ofDays(10));
        Path out = tmp.resolve("x");
        assertThatThrownBy(() -> ca.issue(Role.READER, "bad name", out, Duration.ofDays(1), List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("name=bad name must match");
        assertThatThrownBy(() -> ca.issue(Role.READER, "r", out, Duration.ZERO, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("validity=PT0S must be positive");
        assertThatThrownBy(() -> ca.issue(Role.READER, "r", out, Duration.ofDays(1), List.of("*.example.com")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host=*.example.com is neither an IP address nor a DNS name");
        assertThatThrownBy(() -> ca.issue(Role.READER, "r", out, Duration.ofDays(11), List.of()))
                .isInstanceOf(StoreException.class).hasMessageContaining("after the CA itself expires at");
        assertThatThrownBy(() -> ca.issue(Role.READER, "r", tmp.resolve("ca/."), Duration.ofDays(1), List.of()))
                .isInstanceOf(StoreException.class).hasMessageContaining("is the CA directory");
        assertThat(out).doesNotExist();
        assertThatThrownBy(() -> CertificateAuthority.open(tmp.resolve("none")))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("no CA in " + tmp.resolve("none"))
                .hasMessageContaining("weightstore cert init --dir");
    }

    @Test
    void loadRefusesExposedKeysMismatchedFilesAndExpiredCertificates() throws Exception {
        TestPki pki = TestPki.create(tmp, "ca");
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        pki.ca.issue(Role.READER, "a", a, Duration.ofDays(1), List.of());
        pki.ca.issue(Role.READER, "b", b, Duration.ofDays(1), List.of());

        Files.setPosixFilePermissions(a.resolve("identity.key"), PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> Credentials.load(a))
                .hasMessageContaining("identity.key is open to group or others (mode rw-r--r--)");
        Files.setPosixFilePermissions(a.resolve("identity.key"), PosixFilePermissions.fromString("rw-------"));

        Files.copy(b.resolve("identity.key"), a.resolve("identity.key"), StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> Credentials.load(a)).hasMessageContaining("identity.key is not the key of");

        TestPki other = TestPki.create(tmp, "other-ca");
        Files.copy(other.ca.dir().resolve("ca.crt"), b.resolve("ca.crt"), StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> Credentials.load(b))
                .hasMessageContaining("identity.crt (CN=b) was issued by " + IdentityCertificates.subjectOf(pki.ca.certificate()));

        pki.issueExpired(Role.READER, "old");
        assertThatThrownBy(() -> Credentials.load(tmp.resolve("ca-old")))
                .isInstanceOf(StoreException.class)
                .hasMessageMatching(".*certificate CN=old expired at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ; issue new.*");
        assertThatThrownBy(() -> Credentials.load(tmp.resolve("missing")))
                .hasMessageContaining("is not a directory");
    }

    @Test
    void notBeforeAfterNotAfterIsRefused() throws Exception {
        CertificateAuthority ca = CertificateAuthority.init(tmp.resolve("ca"), Duration.ofDays(10));
        Instant now = Instant.now();
        assertThatThrownBy(() -> ca.issue(new Identity("r", Role.READER), tmp.resolve("r"), now, now, List.of(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be after notBefore=");
    }
}
