package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code config.json}, the file every engine reads first to build a model: checked to be a JSON
 * object before an import stores it, so a broken one is refused at the import, naming where it
 * breaks, instead of failing every load later. Python's {@code json} writes NaN and Infinity, which
 * engines in Python read back, so they are accepted, as is a key given twice (Python keeps the last).
 */
public final class ModelConfig {
    public static final String FILE_NAME = "config.json";
    /** A config is a few KiB; more is not a config. */
    public static final long MAX_BYTES = 16L << 20;

    /** Anything after the object is refused, as Python's json refuses it ("Extra data"). */
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    private ModelConfig() {}

    /** Refuses {@code file} unless it is one JSON object of at most {@link #MAX_BYTES}. */
    public static void check(Path file) throws SafetensorsFormatException {
        JsonNode root = SmallJsonFile.read(file, FILE_NAME, MAX_BYTES, Rule.CONFIG, JSON);
        if (root == null || !root.isObject()) {
            throw new SafetensorsFormatException(Rule.CONFIG, FILE_NAME + " must be a JSON object, found "
                    + (root == null || root.isMissingNode() ? "nothing" : root.getNodeType().toString().toLowerCase(Locale.ROOT)));
        }
    }
}
