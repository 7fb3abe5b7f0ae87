package io.weightstore.store.security;

/**
 * A bearer token, as {@link Tokens#generate} made it. Its text comes out only through {@link #reveal}, so every
 * place that shows or sends it is easy to find; {@link #toString} never includes it, so logging a token, or an
 * object holding one, shows nothing secret.
 */
public final class Token {
    private final String value;

    Token(String value) {
        this.value = value;
    }

    /** The token's text: to show once to whoever asked for it, or to send in an {@code Authorization} header. */
    public String reveal() {
        return value;
    }

    /** What the master keeps instead of the token. */
    public TokenHash hash() {
        return Tokens.hash(value);
    }

    @Override
    public String toString() {
        return "Token[" + Tokens.PREFIX + "(redacted)]";
    }
}
