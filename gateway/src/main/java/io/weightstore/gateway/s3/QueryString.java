package io.weightstore.gateway.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A request's query parameters, decoded, in the order they came. A parameter without '=' has the
 * empty value, as S3 sub-resources such as {@code ?location} do.
 */
public record QueryString(List<Parameter> parameters) {
    /** One {@code name=value} pair, decoded. */
    public record Parameter(String name, String value) {}

    public QueryString {
        parameters = List.copyOf(parameters);
    }

    /**
     * Parses a raw query (what follows '?', still encoded); null or empty gives no parameters.
     *
     * @throws IllegalArgumentException naming the parameter, for a bad percent-escape
     */
    public static QueryString parse(String raw) {
        List<Parameter> parameters = new ArrayList<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : pair.substring(eq + 1);
                parameters.add(new Parameter(UriEncoding.decode(name), UriEncoding.decode(value)));
            }
        }
        return new QueryString(parameters);
    }

    /** The first value of {@code name}, if present. */
    public Optional<String> first(String name) {
        return parameters.stream().filter(p -> p.name().equals(name)).map(Parameter::value).findFirst();
    }

    public boolean has(String name) {
        return parameters.stream().anyMatch(p -> p.name().equals(name));
    }
}
