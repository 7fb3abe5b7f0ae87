package io.weightstore.store.security;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Bearer tokens, the alternative to certificates for clients: {@code wst_} and 32 random bytes in base64url. The
 * master stores only each token's {@link TokenHash} with the identity (and so the role) it is bound to, and
 * compares presented tokens in constant time.
 *
 * <p>The hash is a plain SHA-256, not a slow password hash (bcrypt, Argon2): those exist to make guessing a
 * low-entropy password from its hash expensive, and a token has 256 random bits, so no amount of guessing finds
 * one whatever the hash costs. Slow hashing would only add CPU to every request, and salts defend against
 * precomputed tables that cannot exist for such a space.
 */
public final class Tokens {
    public static final String PREFIX = "wst_";
    static final int RANDOM_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Tokens() {}

    public static Token generate() {
        byte[] random = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(random);
        try {
            return new Token(PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random));
        } finally {
            Arrays.fill(random, (byte) 0);
        }
    }

    /** A token as presented (a file, an environment variable), refused when it is not one this cluster issues. */
    public static Token parse(String text) throws IllegalArgumentException {
        String value = text == null ? "" : text.strip();
        if (!value.startsWith(PREFIX) || value.length() < PREFIX.length() + 40) {
            throw new IllegalArgumentException("not a weightstore token: it must start with " + PREFIX
                    + " and carry 32 random bytes (made by weightstore cert token)");
        }
        return new Token(value);
    }

    public static TokenHash hash(CharSequence token) {
        return new TokenHash(HexFormat.of().formatHex(digest(token)));
    }

    /**
     * Whether {@code presented} hashes to {@code stored}. Both digests are 32 bytes and
     * {@link MessageDigest#isEqual} compares every byte whatever the first difference, so the time taken tells
     * nothing about how close a guess was.
     */
    public static boolean verify(CharSequence presented, TokenHash stored) {
        if (presented == null) {
            return false;
        }
        return MessageDigest.isEqual(digest(presented), stored.bytes());
    }

    /** SHA-256 of the token's UTF-8 bytes, without making a String copy of a token given as another sequence. */
    private static byte[] digest(CharSequence token) {
        ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(token));
        byte[] bytes = new byte[encoded.remaining()];
        encoded.get(bytes);
        try {
            return Sha256.of(bytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
            if (encoded.hasArray()) {
                Arrays.fill(encoded.array(), (byte) 0);
            }
        }
    }
}
