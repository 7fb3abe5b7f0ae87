package io.weightstore.store.security;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreException.Code;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * The cluster's certificate authority: a directory holding {@code ca.crt} and {@code ca.key} (0600), which
 * issues identity credentials. Every master, node and client trusts exactly this CA and nothing else.
 *
 * <p>The CA key stays on the machine where {@code cert init} ran; only {@code ca.crt} travels, inside each issued
 * credentials directory.
 */
public final class CertificateAuthority {
    public static final String CERT_FILE = "ca.crt";
    public static final String KEY_FILE = "ca.key";
    /** The hashes of the tokens this CA issued, as masters read them ({@code name role sha256} per line). */
    public static final String TOKENS_FILE = "tokens";
    public static final Duration DEFAULT_VALIDITY = Duration.ofDays(3650);
    /** Certificates start this long before they are made, so a peer whose clock is a little behind accepts them. */
    static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private final Path dir;
    private final X509Certificate certificate;
    private final PrivateKey key;

    private CertificateAuthority(Path dir, X509Certificate certificate, PrivateKey key) {
        this.dir = dir;
        this.certificate = certificate;
        this.key = key;
    }

    /** {@link #init(Path, Duration)} for {@link #DEFAULT_VALIDITY}, ten years. */
    public static CertificateAuthority init(Path dir) throws StoreException {
        return init(dir, DEFAULT_VALIDITY);
    }

    /**
     * Creates a new CA in {@code dir} (made 0700 if it does not exist), valid for {@code validity}. Refuses a
     * directory that already holds a CA: replacing it would orphan every credential it issued.
     */
    public static CertificateAuthority init(Path dir, Duration validity) throws StoreException {
        requirePositive(validity);
        Path certFile = dir.resolve(CERT_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        List<String> present = existing(dir, CERT_FILE, KEY_FILE);
        if (!present.isEmpty()) {
            throw new StoreException(Code.ALREADY_EXISTS, dir + " already holds a CA (" + String.join(", ", present)
                    + "); refusing to overwrite it, as that would orphan every credential it issued");
        }
        try {
            KeyPair keys = CertificateSigner.newKeyPair();
            // A suffix taken from the new key tells clusters apart in messages ("issued by CN=… 3f9a…, not by …").
            String name = "weightstore cluster CA " + HexFormat.of().formatHex(Sha256.of(keys.getPublic().getEncoded()), 0, 4);
            Instant now = Instant.now();
            X509Certificate certificate =
                    CertificateSigner.selfSignedCa(keys, name, now.minus(CLOCK_SKEW), now.plus(validity));
            SecureFiles.createPrivateDirectories(dir);
            SecureFiles.write(keyFile, KeyFiles.encode(keys.getPrivate()), SecureFiles.OWNER_ONLY, false);
            SecureFiles.write(certFile, Pem.encode(Pem.CERTIFICATE, certificate.getEncoded()),
                    SecureFiles.WORLD_READABLE, false);
            return new CertificateAuthority(dir, certificate, keys.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new StoreException(Code.IO, "cannot create a CA: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new StoreException(Code.IO, "cannot write the CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The CA in {@code dir}, as {@code init} left it. */
    public static CertificateAuthority open(Path dir) throws StoreException {
        Path certFile = dir.resolve(CERT_FILE);
        Path keyFile = dir.resolve(KEY_FILE);
        if (!Files.isRegularFile(certFile) || !Files.isRegularFile(keyFile)) {
            throw new StoreException(Code.NOT_FOUND, "no CA in " + dir + " (" + CERT_FILE + " and " + KEY_FILE
                    + " needed); create one with: weightstore cert init --dir " + dir);
        }
        try {
            X509Certificate certificate = CertificateFiles.read(certFile);
            PrivateKey key = KeyFiles.readPrivateKey(keyFile);
            KeyFiles.requireMatch(certificate, key, certFile, keyFile);
            return new CertificateAuthority(dir, certificate, key);
        } catch (NoSuchFileException e) {
            throw new StoreException(Code.NOT_FOUND, "no CA in " + dir + ": " + e.getFile() + " is missing", e);
        } catch (IOException | GeneralSecurityException e) {
            throw new StoreException(Code.IO, "cannot read the CA in " + dir + ": " + e.getMessage(), e);
        }
    }

    public Path dir() {
        return dir;
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** {@link #issue(Role, String, Path, Duration, List, boolean)} into a directory without credentials. */
    public X509Certificate issue(Role role, String name, Path outDir, Duration validity, List<String> hosts)
            throws StoreException {
        return issue(role, name, outDir, validity, hosts, false);
    }

    /**
     * Issues a new key and certificate for {@code role} and {@code name}, valid for {@code validity} from now, and
     * writes {@code ca.crt}, {@code identity.crt} and {@code identity.key} (0600) into {@code outDir} (0700 when
     * created here). {@code hosts} become DNS or IP SANs. Existing credentials there are replaced only with
     * {@code replace}.
     */
    public X509Certificate issue(Role role, String name, Path outDir, Duration validity, List<String> hosts,
            boolean replace) throws StoreException {
        requirePositive(validity);
        Instant now = Instant.now();
        return issue(new Identity(name, role), outDir, now.minus(CLOCK_SKEW), now.plus(validity), hosts, replace);
    }

    /** Issues with explicit validity bounds; tests use it to make certificates that expired or are not yet valid. */
    X509Certificate issue(Identity identity, Path outDir, Instant notBefore, Instant notAfter, List<String> hosts,
            boolean replace) throws StoreException {
        if (!notAfter.isAfter(notBefore)) {
            throw new IllegalArgumentException("notAfter=" + notAfter + " must be after notBefore=" + notBefore);
        }
        Instant caNotAfter = certificate.getNotAfter().toInstant();
        if (notAfter.isAfter(caNotAfter)) {
            throw new StoreException(Code.INVALID_ARGUMENT, "validity would end at " + notAfter
                    + ", after the CA itself expires at " + caNotAfter + "; ask for less");
        }
        if (outDir.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) {
            throw new StoreException(Code.INVALID_ARGUMENT, "out=" + outDir + " is the CA directory; credentials go to "
                    + "a directory of their own, so copying them never copies " + KEY_FILE);
        }
        List<String> present = existing(outDir, Credentials.CA_CERT_FILE, Credentials.CERT_FILE, Credentials.KEY_FILE);
        if (!present.isEmpty() && !replace) {
            throw new StoreException(Code.ALREADY_EXISTS, outDir + " already holds credentials ("
                    + String.join(", ", present) + "); refusing to overwrite them");
        }
        try {
            KeyPair keys = CertificateSigner.newKeyPair();
            X509Certificate issued = CertificateSigner.identity(certificate, key, identity, keys.getPublic(),
                    notBefore, notAfter, hosts);
            SecureFiles.createPrivateDirectories(outDir);
            // The key first: a certificate never sits in a directory without its key.
            SecureFiles.write(outDir.resolve(Credentials.KEY_FILE), KeyFiles.encode(keys.getPrivate()),
                    SecureFiles.OWNER_ONLY, replace);
            SecureFiles.write(outDir.resolve(Credentials.CERT_FILE), Pem.encode(Pem.CERTIFICATE, issued.getEncoded()),
                    SecureFiles.WORLD_READABLE, replace);
            SecureFiles.write(outDir.resolve(Credentials.CA_CERT_FILE),
                    Pem.encode(Pem.CERTIFICATE, certificate.getEncoded()), SecureFiles.WORLD_READABLE, replace);
            return issued;
        } catch (GeneralSecurityException e) {
            throw new StoreException(Code.IO, "cannot issue a certificate for " + identity + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new StoreException(Code.IO, "cannot write credentials to " + outDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Issues a bearer token for {@code role} and {@code name}: writes it to {@code outDir/token} (0600)
     * next to {@code ca.crt}, so {@code outDir} is a credentials directory, and records its hash in
     * this CA's {@value #TOKENS_FILE} file, which masters read with {@code --tokens}. The token itself
     * is kept nowhere else. A name that already has a token keeps it unless {@code replace}.
     */
    public void issueToken(Role role, String name, Path outDir, boolean replace) throws StoreException {
        Identity identity = new Identity(name, role);
        if (outDir.toAbsolutePath().normalize().equals(dir.toAbsolutePath().normalize())) {
            throw new StoreException(Code.INVALID_ARGUMENT, "out=" + outDir + " is the CA directory; a token goes to a directory"
                    + " of its own");
        }
        Path registry = dir.resolve(TOKENS_FILE);
        try {
            List<String> lines = new ArrayList<>();
            if (Files.exists(registry)) {
                for (String line : new String(SecureFiles.readPrivate(registry), StandardCharsets.UTF_8).split("\n")) {
                    boolean sameName = line.startsWith(name + " ");
                    if (sameName && !replace) {
                        throw new StoreException(Code.ALREADY_EXISTS, name + " already has a token in " + registry);
                    }
                    if (!sameName && !line.isBlank()) {
                        lines.add(line);
                    }
                }
            }
            if (Files.exists(outDir.resolve(Authentication.TOKEN_FILE)) && !replace) {
                throw new StoreException(Code.ALREADY_EXISTS, outDir + " already holds a token; refusing to overwrite it");
            }
            Token token = Tokens.generate();
            lines.add(TokenRegistry.line(identity, token.hash()));
            SecureFiles.createPrivateDirectories(outDir);
            SecureFiles.write(outDir.resolve(Authentication.TOKEN_FILE), (token.reveal() + "\n").getBytes(StandardCharsets.UTF_8),
                    SecureFiles.OWNER_ONLY, replace);
            SecureFiles.write(outDir.resolve(Credentials.CA_CERT_FILE), Pem.encode(Pem.CERTIFICATE, certificate.getEncoded()),
                    SecureFiles.WORLD_READABLE, true);
            SecureFiles.write(registry, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8), SecureFiles.OWNER_ONLY,
                    true);
        } catch (StoreException e) {
            throw e;
        } catch (GeneralSecurityException e) {
            throw new StoreException(Code.IO, "cannot encode the CA certificate: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new StoreException(Code.IO, "cannot write the token for " + identity + ": " + e.getMessage(), e);
        }
    }

    private static void requirePositive(Duration validity) {
        if (validity == null || validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("validity=" + validity + " must be positive");
        }
    }

    private static List<String> existing(Path dir, String... names) {
        return Stream.of(names).filter(n -> Files.exists(dir.resolve(n))).toList();
    }

    @Override
    public String toString() {
        return "CertificateAuthority[" + IdentityCertificates.subjectOf(certificate) + " in " + dir + "]";
    }
}
