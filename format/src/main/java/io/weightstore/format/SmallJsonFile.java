package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JSON file of a checkpoint read whole into a tree (the index, the config), refused unread when it is
 * larger than such a file may be: a tree takes several times a file's size.
 */
final class SmallJsonFile {
    private SmallJsonFile() {}

    /**
     * The tree of {@code file}, called {@code name} in the violations of {@code rule} it may raise: when
     * it cannot be read, has more than {@code maxBytes}, or is not JSON (naming the line and column).
     */
    static JsonNode read(Path file, String name, long maxBytes, Rule rule, ObjectMapper json) throws SafetensorsFormatException {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            throw new SafetensorsFormatException(rule, name + " cannot be read: " + e.getMessage());
        }
        if (size > maxBytes) {
            throw new SafetensorsFormatException(rule, name + " has " + size + " bytes, more than the " + maxBytes + " it may have");
        }
        try {
            return json.readTree(file.toFile());
        } catch (IOException e) {
            throw new SafetensorsFormatException(rule, name + " is not valid JSON: " + JsonErrors.describe(e));
        }
    }
}
