package io.weightstore.jlama.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The key clients must send as {@code Authorization: Bearer KEY}. Only its SHA-256 is kept, so the
 * key itself can never reach a log or a {@code toString}; comparing digests with
 * {@link MessageDigest#isEqual} takes the same time whatever the guess, and reveals not even the
 * key's length.
 */
public final class ApiKey {
    private static final String BEARER = "Bearer ";

    private final byte[] digest;

    private ApiKey(byte[] digest) {
        this.digest = digest;
    }

    /**
     * The key {@code key} names, less whitespace at its ends (a secret mounted from a file ends with a newline, and a
     * client's header is read the same way): one kept with it could never match.
     */
    public static ApiKey of(String key) {
        String stripped = key.strip();
        if (stripped.isEmpty()) {
            throw new IllegalArgumentException("the API key must not be empty or blank");
        }
        if (stripped.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("the API key must not hold whitespace: clients send it as 'Bearer KEY'");
        }
        return new ApiKey(sha256(stripped));
    }

    /** Whether an {@code Authorization} header value carries this key. */
    boolean admits(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        return MessageDigest.isEqual(digest, sha256(authorization.substring(BEARER.length()).strip()));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "ApiKey[set]";
    }
}
