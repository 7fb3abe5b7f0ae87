package io.weightstore.weights;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** The one JSON form of weightstore's records, for manifests in the store and {@code --json} output alike: times as ISO-8601. */
public final class Json {
    private Json() {}

    /** A new mapper, so callers may add settings of their own. */
    public static ObjectMapper mapper() {
        return new ObjectMapper().registerModule(new JavaTimeModule()).enable(SerializationFeature.INDENT_OUTPUT)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    }
}
