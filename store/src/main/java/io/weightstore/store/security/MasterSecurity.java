package io.weightstore.store.security;

/**
 * How a master admits callers: with mutual TLS and role checks, where a caller is named by its
 * certificate or by a bearer token from {@code tokens}; or, only when the operator asked for it,
 * insecure (plaintext, anyone may do anything).
 */
public sealed interface MasterSecurity {
    record Insecure() implements MasterSecurity {}

    record Secure(Credentials credentials, TokenRegistry tokens) implements MasterSecurity {
        public Secure {
            if (credentials.identity().role() != Role.MASTER) {
                throw new IllegalArgumentException("a master needs a master credential, not " + credentials.identity());
            }
        }
    }

    static MasterSecurity insecure() {
        return new Insecure();
    }
}
