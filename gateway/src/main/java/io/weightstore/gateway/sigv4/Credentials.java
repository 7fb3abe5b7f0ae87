package io.weightstore.gateway.sigv4;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * An access key id and its secret. The secret never leaves this object: it is kept only as the
 * first key of the signing-key chain ({@code "AWS4" + secret}), and {@link #toString()} shows the id
 * alone, so neither a log line nor an exception message can carry it.
 */
public final class Credentials {
    /** What S3 clients accept as an id: it travels in {@code Credential=ID/date/...}, so no '/', ',' or space. */
    private static final Pattern ACCESS_KEY_ID = Pattern.compile("[A-Za-z0-9._~+=@-]{1,128}");

    private final String accessKeyId;
    private final byte[] firstKey;

    private Credentials(String accessKeyId, byte[] firstKey) {
        this.accessKeyId = accessKeyId;
        this.firstKey = firstKey;
    }

    /**
     * @throws IllegalArgumentException for an id with characters a credential scope cannot carry, or
     *     an empty or blank secret (the message never quotes the secret)
     */
    public static Credentials of(String accessKeyId, String secretKey) {
        if (accessKeyId == null || !ACCESS_KEY_ID.matcher(accessKeyId).matches()) {
            throw new IllegalArgumentException("access key id '" + accessKeyId + "' must be 1 to 128 of A-Z a-z 0-9 . _ ~ + = @ -");
        }
        if (secretKey == null || secretKey.isBlank()) {
            throw new IllegalArgumentException("the secret key of access key " + accessKeyId + " must not be empty or blank");
        }
        return new Credentials(accessKeyId, ("AWS4" + secretKey).getBytes(StandardCharsets.UTF_8));
    }

    public String accessKeyId() {
        return accessKeyId;
    }

    /** The key that signs requests of one day, region and service: HMAC down the scope, as the spec defines. */
    byte[] signingKey(CredentialScope scope) {
        byte[] key = Hashes.hmacSha256(firstKey, scope.date());
        key = Hashes.hmacSha256(key, scope.region());
        key = Hashes.hmacSha256(key, scope.service());
        return Hashes.hmacSha256(key, CredentialScope.TERMINATOR);
    }

    @Override
    public String toString() {
        return "Credentials[" + accessKeyId + ", secret not shown]";
    }
}
