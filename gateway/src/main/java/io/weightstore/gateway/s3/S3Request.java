package io.weightstore.gateway.s3;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A request as it arrived, as the signature check and the handlers read it: the method, the path
 * still encoded as it was on the wire, the decoded query, and the headers by lower-case name, each
 * with its values in arrival order (names that differ only in case are one header).
 */
public record S3Request(String method, String rawPath, QueryString query, Map<String, List<String>> headers) {
    public S3Request {
        TreeMap<String, List<String>> byName = new TreeMap<>();
        headers.forEach((name, values) -> byName.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).addAll(values));
        byName.replaceAll((name, values) -> List.copyOf(values));
        headers = Collections.unmodifiableMap(byName);
    }

    /** The first value of header {@code name} (any case), or null. */
    public String header(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? null : values.getFirst();
    }
}
