package io.weightstore.store.security;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 of a byte array, for certificate fingerprints and token hashes. */
final class Sha256 {
    private Sha256() {}

    static byte[] of(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
