package io.weightstore.weights.checks;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.checksum.Checksums;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The {@link TensorCrcs} of every tensor of one safetensors file, and the CRC32C of its length prefix and header:
 * what the import stores beside the file, and the manifest pins with its SHA-256. JSON, CRCs as 8 hex digits:
 *
 * <pre>{"schemaVersion":1,"headerCrc32c":"…","tensors":[{"name":"…","crc32c":"e3069283","rows":{"2":["…","…"]},
 *  "columns":{"2":["…","…"]}}]}</pre>
 *
 * <p>The header's CRC is what a load checks the header it reads against: a header is a part of the file's first
 * checksum block, which the client cannot check by itself, and a header changed at its length (a dtype, a shape)
 * would give the engine other tensors than the import stored. Tables written before it lack it; readers of
 * this schema that do not know it pass over it.
 */
public final class TensorCrcTable {
    public static final int SCHEMA_VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private final OptionalInt headerCrc32c;
    private final Map<String, TensorCrcs> byName;

    private TensorCrcTable(OptionalInt headerCrc32c, Map<String, TensorCrcs> byName) {
        this.headerCrc32c = headerCrc32c;
        this.byName = byName;
    }

    /** A table of {@code tensors}, and of the header whose CRC32C is {@code headerCrc32c} when known. */
    public static TensorCrcTable of(OptionalInt headerCrc32c, List<TensorCrcs> tensors) {
        Map<String, TensorCrcs> byName = new LinkedHashMap<>();
        tensors.forEach(t -> byName.put(t.name(), t));
        return new TensorCrcTable(headerCrc32c, byName);
    }

    /** Every tensor of a safetensors file, and its header, from the file's bytes (all of them, header included). */
    public static TensorCrcTable compute(SafetensorsHeader header, MemorySegment file) {
        List<TensorCrcs> tensors = new ArrayList<>();
        for (TensorInfo tensor : header.tensors()) {
            tensors.add(TensorCrcCalculator.compute(tensor, file.asSlice(header.dataStart() + tensor.begin(), tensor.byteSize())));
        }
        return of(OptionalInt.of(Checksums.crc32c(file.asSlice(0, header.dataStart()))), tensors);
    }

    /** The CRC32C of the file's bytes before its data (length prefix and header), unless the table predates it. */
    public OptionalInt headerCrc32c() {
        return headerCrc32c;
    }

    public Optional<TensorCrcs> tensor(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    public int size() {
        return byName.size();
    }

    public byte[] toJson() {
        ObjectNode root = JSON.createObjectNode().put("schemaVersion", SCHEMA_VERSION);
        headerCrc32c.ifPresent(crc -> root.put("headerCrc32c", HEX.toHexDigits(crc)));
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

    /**
     * Parses a table; {@code what} names it in errors. Streamed, not read into a tree first: every load
     * parses the tables of its files while it opens, and an engine's fresh process does that in cold
     * code (a table of 410 tensors parsed a second time in a fresh JVM: 13-23 ms as a tree, 7-11 ms
     * streamed).
     */
    public static TensorCrcTable fromJson(byte[] json, String what) throws IOException {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw notATable(what);
            }
            int schemaVersion = 0;
            OptionalInt headerCrc32c = OptionalInt.empty();
            List<TensorCrcs> tensors = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("schemaVersion") && value == JsonToken.VALUE_NUMBER_INT) {
                    schemaVersion = parser.getIntValue();
                } else if (field.equals("headerCrc32c") && value == JsonToken.VALUE_STRING) {
                    try {
                        headerCrc32c = OptionalInt.of(crc(parser.getText()));
                    } catch (IllegalArgumentException e) {
                        throw new IOException(what + ": headerCrc32c: " + e.getMessage(), e);
                    }
                } else if (field.equals("tensors") && value == JsonToken.START_ARRAY) {
                    tensors = tensors(parser, json, what);
                } else {
                    parser.skipChildren();
                }
            }
            if (schemaVersion != SCHEMA_VERSION || tensors == null) {
                throw notATable(what);
            }
            return of(headerCrc32c, tensors);
        } catch (JsonProcessingException e) {
            throw new IOException(what + ": " + e.getOriginalMessage(), e);
        }
    }

    /** The entries of the tensors array whose start the parser is at. */
    private static List<TensorCrcs> tensors(JsonParser parser, byte[] json, String what) throws IOException {
        List<TensorCrcs> tensors = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            try {
                tensors.add(tensor(parser, tensors.size()));
            } catch (IllegalArgumentException e) {
                // A table of another schema may lay out its entries otherwise, and may say which schema only after them.
                if (schemaVersion(json) != SCHEMA_VERSION) {
                    throw notATable(what);
                }
                throw new IOException(what + ": " + e.getMessage(), e);
            }
        }
        return tensors;
    }

    private static TensorCrcs tensor(JsonParser parser, int index) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("tensor entry " + index + " is not an object: " + describe(parser));
        }
        String name = null;
        String crc32c = null;
        Map<Integer, List<Integer>> rows = Map.of();
        Map<Integer, List<Integer>> columns = Map.of();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (field) {
                case "name" -> name = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                case "crc32c" -> crc32c = value == JsonToken.VALUE_STRING ? parser.getText() : null;
                case "rows" -> rows = shards(parser);
                case "columns" -> columns = shards(parser);
                default -> parser.skipChildren();
            }
        }
        if (name == null) {
            throw new IllegalArgumentException("tensor entry " + index + " needs a string 'name'");
        }
        if (crc32c == null) {
            throw new IllegalArgumentException("tensor entry " + index + " (" + name + ") needs a string 'crc32c'");
        }
        return new TensorCrcs(name, crc(crc32c), rows, columns);
    }

    /** A {@code {"worldSize": [a CRC per rank]}} object; anything else records no shard. */
    private static Map<Integer, List<Integer>> shards(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return Map.of();
        }
        Map<Integer, List<Integer>> shards = new TreeMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            int worldSize = Integer.parseInt(parser.currentName());
            List<Integer> crcs = new ArrayList<>();
            if (parser.nextToken() == JsonToken.START_ARRAY) {
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    crcs.add(crc(describe(parser)));
                }
            } else {
                parser.skipChildren();
            }
            shards.put(worldSize, crcs);
        }
        return shards;
    }

    /** The value the parser is at, for a message: a scalar's text, a container's kind (passed over). */
    private static String describe(JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case START_OBJECT -> {
                parser.skipChildren();
                yield "an object";
            }
            case START_ARRAY -> {
                parser.skipChildren();
                yield "an array";
            }
            default -> parser.getText();
        };
    }

    /** The root's schema version, looked up again after an entry that could not be read; 0 when there is none. */
    private static int schemaVersion(byte[] json) throws IOException {
        int version = 0;
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() == JsonToken.START_OBJECT) {
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    boolean schema = parser.currentName().equals("schemaVersion");
                    if (parser.nextToken() == JsonToken.VALUE_NUMBER_INT && schema) {
                        version = parser.getIntValue();
                    }
                    parser.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            // Cut short after the entry: what was found before the cut stands.
        }
        return version;
    }

    private static IOException notATable(String what) {
        return new IOException(what + " is not a tensor CRC table of schema version " + SCHEMA_VERSION);
    }

    private static int crc(String hex) {
        if (hex.length() != 8) {
            throw new IllegalArgumentException("a CRC32C is 8 hex digits, found '" + hex + "'");
        }
        return HEX.fromHexDigits(hex);
    }
}
