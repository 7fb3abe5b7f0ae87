package io.weightstore.gateway.sigv4;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code Authorization} header of a Signature V4 request:
 * {@code AWS4-HMAC-SHA256 Credential=..., SignedHeaders=a;b;c, Signature=<64 hex>}.
 */
record AuthorizationHeader(CredentialScope credential, List<String> signedHeaders, String signature) {
    static final String ALGORITHM = "AWS4-HMAC-SHA256";

    /**
     * @throws IllegalArgumentException saying what is missing or malformed
     */
    static AuthorizationHeader parse(String value) {
        if (!value.startsWith(ALGORITHM + " ")) {
            throw new IllegalArgumentException("the Authorization header must start with '" + ALGORITHM + " '");
        }
        Map<String, String> fields = new HashMap<>();
        for (String part : value.substring(ALGORITHM.length() + 1).split(",")) {
            String field = part.strip();
            int eq = field.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("the Authorization header has a part without '=': '" + field + "'");
            }
            if (fields.put(field.substring(0, eq), field.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("the Authorization header has " + field.substring(0, eq) + " twice");
            }
        }
        for (String required : List.of("Credential", "SignedHeaders", "Signature")) {
            if (!fields.containsKey(required)) {
                throw new IllegalArgumentException("the Authorization header has no " + required + "=");
            }
        }
        return new AuthorizationHeader(CredentialScope.parse(fields.get("Credential")), SignedHeaders.parse(fields.get("SignedHeaders")),
                fields.get("Signature"));
    }
}
