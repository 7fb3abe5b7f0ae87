package io.weightstore.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.weights.Json;
import java.io.PrintWriter;

/** The one way commands print {@code --json}: pretty, stable field order, times as ISO-8601, one document per call. */
public final class JsonOutput {
    private static final ObjectMapper JSON = Json.mapper();

    private JsonOutput() {}

    public static void print(PrintWriter out, Object value) {
        try {
            out.println(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
        out.flush();
    }
}
