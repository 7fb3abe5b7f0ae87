package io.weightstore.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;

/** The one way commands print {@code --json}: pretty, stable field order, one document per call. */
final class JsonOutput {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonOutput() {}

    static void print(PrintWriter out, Object value) {
        try {
            out.println(JSON.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise " + value.getClass().getSimpleName(), e);
        }
        out.flush();
    }
}
