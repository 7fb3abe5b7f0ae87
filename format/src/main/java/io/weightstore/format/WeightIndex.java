package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code model.safetensors.index.json}: which file holds each tensor. Its {@code metadata.total_size}
 * is informational only and is not checked.
 */
public record WeightIndex(Map<String, String> weightMap) {
    public static final String FILE_NAME = "model.safetensors.index.json";
    /** The largest index read. */
    public static final long MAX_BYTES = 32L << 20;

    /** Anything after the object is refused, as Python's json refuses it ("Extra data"). */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    public WeightIndex {
        weightMap = Map.copyOf(weightMap);
    }

    public static WeightIndex read(Path file) throws SafetensorsFormatException {
        // A tree of several times its size: the index of a model of a hundred thousand tensors has about 10 MB.
        JsonNode root = SmallJsonFile.read(file, FILE_NAME, MAX_BYTES, Rule.INDEX, JSON);
        JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject()) {
            throw new SafetensorsFormatException(Rule.INDEX, FILE_NAME + " must be an object with a 'weight_map' object");
        }
        Map<String, String> weightMap = new LinkedHashMap<>();
        for (var entry : map.properties()) {
            if (!entry.getValue().isTextual()) {
                throw new SafetensorsFormatException(Rule.INDEX, entry.getKey(),
                        FILE_NAME + " weight_map value must be a file name, found " + entry.getValue().getNodeType());
            }
            weightMap.put(entry.getKey(), entry.getValue().textValue());
        }
        return new WeightIndex(weightMap);
    }
}
