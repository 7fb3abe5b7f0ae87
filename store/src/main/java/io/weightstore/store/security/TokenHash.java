package io.weightstore.store.security;

import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The SHA-256 of a token, which is what the master stores next to the identity the token is bound to. Knowing
 * it does not help to make the token (see {@link Tokens}), so it may be stored and shown; check a presented token
 * with {@link Tokens#verify}.
 *
 * @param sha256 64 lower-case hex digits
 */
public record TokenHash(String sha256) {
    private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

    public TokenHash {
        if (sha256 == null || !HEX_SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("sha256=" + sha256 + " must be 64 lower-case hex digits");
        }
    }

    byte[] bytes() {
        return HexFormat.of().parseHex(sha256);
    }
}
