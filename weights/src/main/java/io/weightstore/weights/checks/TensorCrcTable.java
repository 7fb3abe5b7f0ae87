package io.weightstore.weights.checks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@link TensorCrcs} of every tensor of one safetensors file: what the import stores beside the
 * file, and the manifest pins with its SHA-256. JSON, CRCs as 8 hex digits:
 *
 * <pre>{"schemaVersion":1,"tensors":[{"name":"…","crc32c":"e3069283","rows":{"2":["…","…"]},"columns":{"2":["…","…"]}}]}</pre>
 */
public final class TensorCrcTable {
    public static final int SCHEMA_VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private final Map<String, TensorCrcs> byName;

    private TensorCrcTable(Map<String, TensorCrcs> byName) {
        this.byName = byName;
    }

    public static TensorCrcTable of(List<TensorCrcs> tensors) {
        Map<String, TensorCrcs> byName = new LinkedHashMap<>();
        tensors.forEach(t -> byName.put(t.name(), t));
        return new TensorCrcTable(byName);
    }

    /** Every tensor of a safetensors file, from the file's bytes (all of them, header included). */
    public static TensorCrcTable compute(SafetensorsHeader header, MemorySegment file) {
        List<TensorCrcs> tensors = new ArrayList<>();
        for (TensorInfo tensor : header.tensors()) {
            tensors.add(TensorCrcCalculator.compute(tensor, file.asSlice(header.dataStart() + tensor.begin(), tensor.byteSize())));
        }
        return of(tensors);
    }

    public Optional<TensorCrcs> tensor(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public int size() {
        return byName.size();
    }

    public byte[] toJson() {
        ObjectNode root = JSON.createObjectNode().put("schemaVersion", SCHEMA_VERSION);
        ArrayNode tensors = root.putArray("tensors");
        for (TensorCrcs t : byName.values()) {
            ObjectNode node = tensors.addObject().put("name", t.name()).put("crc32c", HEX.toHexDigits(t.crc32c()));
            write(node.putObject("rows"), t.rows());
            write(node.putObject("columns"), t.columns());
        }
        try {
            return JSON.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise a tensor CRC table", e);
        }
    }

    private static void write(ObjectNode into, Map<Integer, List<Integer>> shards) {
        new TreeMap<>(shards).forEach((t, crcs) -> {
            ArrayNode list = into.putArray(Integer.toString(t));
            crcs.forEach(crc -> list.add(HEX.toHexDigits(crc)));
        });
    }

    /** Parses a table; {@code what} names it in errors. */
    public static TensorCrcTable fromJson(byte[] json, String what) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IOException(what + ": " + e.getOriginalMessage(), e);
        }
        if (root == null || root.path("schemaVersion").asInt() != SCHEMA_VERSION || !root.path("tensors").isArray()) {
            throw new IOException(what + " is not a tensor CRC table of schema version " + SCHEMA_VERSION);
        }
        List<TensorCrcs> tensors = new ArrayList<>();
        try {
            for (JsonNode t : root.get("tensors")) {
                tensors.add(new TensorCrcs(text(t, "name"), crc(text(t, "crc32c")), read(t.path("rows")), read(t.path("columns"))));
            }
        } catch (IllegalArgumentException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
        return of(tensors);
    }

    private static Map<Integer, List<Integer>> read(JsonNode shards) {
        Map<Integer, List<Integer>> read = new TreeMap<>();
        shards.properties().forEach(e -> {
            List<Integer> crcs = new ArrayList<>();
            e.getValue().forEach(crc -> crcs.add(crc(crc.asText())));
            read.put(Integer.parseInt(e.getKey()), crcs);
        });
        return read;
    }

    private static String text(JsonNode node, String field) {
        if (!node.path(field).isTextual()) {
            throw new IllegalArgumentException("a tensor entry needs a string '" + field + "', found " + node);
        }
        return node.get(field).asText();
    }

    private static int crc(String hex) {
        if (hex.length() != 8) {
            throw new IllegalArgumentException("a CRC32C is 8 hex digits, found '" + hex + "'");
        }
        return HEX.fromHexDigits(hex);
    }
}
