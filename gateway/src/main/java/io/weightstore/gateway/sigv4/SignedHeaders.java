package io.weightstore.gateway.sigv4;

import java.util.List;
import java.util.Locale;

/** The {@code SignedHeaders} list: lower-case names separated by ';', as the client signed them. */
final class SignedHeaders {
    private SignedHeaders() {}

    /**
     * @throws IllegalArgumentException for an empty list or name, an upper-case name, or no {@code host}
     */
    static List<String> parse(String value) {
        List<String> names = List.of(value.split(";", -1));
        for (String name : names) {
            if (name.isEmpty() || !name.equals(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("SignedHeaders '" + value + "' must be lower-case header names separated by ';'");
            }
        }
        if (!names.contains("host")) {
            throw new IllegalArgumentException("SignedHeaders '" + value + "' must include host");
        }
        return names;
    }
}
