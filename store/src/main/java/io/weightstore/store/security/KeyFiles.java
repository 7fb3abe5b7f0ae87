package io.weightstore.store.security;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;

/** Reading and writing the PEM files of a CA or a credentials directory. */
final class KeyFiles {
    private KeyFiles() {}

    /** A private key as PEM PKCS#8, unencrypted: file permissions protect it. */
    static byte[] encode(PrivateKey key) {
        byte[] der = key.getEncoded();
        try {
            return Pem.encode(Pem.PRIVATE_KEY, der);
        } finally {
            Arrays.fill(der, (byte) 0);
        }
    }

    /** The EC key in {@code file}, which must be 0600 (see {@link SecureFiles#readPrivate}). */
    static PrivateKey readPrivateKey(Path file) throws IOException, GeneralSecurityException {
        byte[] pem = SecureFiles.readPrivate(file);
        byte[] der = null;
        try {
            der = Pem.decode(Pem.PRIVATE_KEY, pem, file.toString());
            return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            // The provider's message could quote key bytes; name the file and the kind of failure only.
            throw new GeneralSecurityException(file + " holds no readable EC private key ("
                    + e.getClass().getSimpleName() + ")");
        } finally {
            Arrays.fill(pem, (byte) 0);
            if (der != null) {
                Arrays.fill(der, (byte) 0);
            }
        }
    }

    /** Proves {@code key} belongs to {@code certificate} by signing with one and verifying with the other. */
    static void requireMatch(X509Certificate certificate, PrivateKey key, Path certFile, Path keyFile)
            throws GeneralSecurityException {
        byte[] challenge = new byte[32];
        new SecureRandom().nextBytes(challenge);
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(key);
        signer.update(challenge);
        byte[] signature = signer.sign();
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(certificate.getPublicKey());
        verifier.update(challenge);
        if (!verifier.verify(signature)) {
            throw new GeneralSecurityException(keyFile + " is not the key of " + certFile + " ("
                    + IdentityCertificates.subjectOf(certificate) + ")");
        }
    }
}
