package io.weightstore.store.security;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HexFormat;

/** Certificate files as this package writes them (PEM), and the fingerprint people compare them by. */
public final class CertificateFiles {
    private CertificateFiles() {}

    /**
     * The certificate in {@code file}. A file holding a private key is refused before it is parsed, so a key
     * passed by mistake never reaches a parser's error message.
     */
    public static X509Certificate read(Path file) throws IOException, GeneralSecurityException {
        byte[] bytes = Files.readAllBytes(file);
        if (new String(bytes, StandardCharsets.US_ASCII).contains("PRIVATE KEY-----")) {
            throw new GeneralSecurityException(file + " holds a private key, not a certificate");
        }
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(bytes));
        } catch (GeneralSecurityException e) {
            throw new GeneralSecurityException(file + " holds no readable X.509 certificate: " + e.getMessage(), e);
        }
    }

    /** SHA-256 of the DER encoding as colon-separated hex, as {@code openssl x509 -fingerprint -sha256} prints it. */
    public static String fingerprint(X509Certificate certificate) {
        try {
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(Sha256.of(certificate.getEncoded()));
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("a parsed certificate has an encoding", e);
        }
    }
}
