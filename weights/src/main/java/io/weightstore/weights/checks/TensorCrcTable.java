package io.weightstore.weights.checks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    /** Streams, with no ObjectMapper: a load reads tables before anything else in the JVM has built one. */
    private static final JsonFactory JSON = new JsonFactory();
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
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(bytes)) {
            json.writeStartObject();
            json.writeNumberField("schemaVersion", SCHEMA_VERSION);
            json.writeArrayFieldStart("tensors");
            for (TensorCrcs t : byName.values()) {
                json.writeStartObject();
                json.writeStringField("name", t.name());
                json.writeStringField("crc32c", HEX.toHexDigits(t.crc32c()));
                write(json, "rows", t.rows());
                write(json, "columns", t.columns());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise a tensor CRC table", e);
        }
        return bytes.toByteArray();
    }

    private static void write(JsonGenerator json, String field, Map<Integer, List<Integer>> shards) throws IOException {
        json.writeObjectFieldStart(field);
        for (Map.Entry<Integer, List<Integer>> shard : new TreeMap<>(shards).entrySet()) {
            json.writeArrayFieldStart(Integer.toString(shard.getKey()));
            for (int crc : shard.getValue()) {
                json.writeString(HEX.toHexDigits(crc));
            }
            json.writeEndArray();
        }
        json.writeEndObject();
    }

    /**
     * Parses a table; {@code what} names it in errors. Streamed, not read as a tree: a load parses it
     * before the JVM has warmed up, where a tree of a node per CRC took a tenth of a second per file.
     */
    public static TensorCrcTable fromJson(byte[] json, String what) throws IOException {
        int schemaVersion = -1;
        List<TensorCrcs> tensors = null;
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() == JsonToken.START_OBJECT) {
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String field = parser.currentName();
                    JsonToken value = parser.nextToken();
                    if (field.equals("schemaVersion") && value == JsonToken.VALUE_NUMBER_INT) {
                        schemaVersion = parser.getIntValue();
                    } else if (field.equals("tensors") && value == JsonToken.START_ARRAY) {
                        tensors = readTensors(parser);
                    } else {
                        parser.skipChildren();
                    }
                }
            }
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new IOException(what + ": " + e.getMessage(), e);
        }
        if (schemaVersion != SCHEMA_VERSION || tensors == null) {
            throw new IOException(what + " is not a tensor CRC table of schema version " + SCHEMA_VERSION);
        }
        return of(tensors);
    }

    private static List<TensorCrcs> readTensors(JsonParser parser) throws IOException {
        List<TensorCrcs> tensors = new ArrayList<>();
        for (JsonToken entry; (entry = parser.nextToken()) != JsonToken.END_ARRAY; ) {
            if (entry != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a tensor entry must be an object, found " + entry);
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
                    case "rows" -> rows = readShards(parser);
                    case "columns" -> columns = readShards(parser);
                    default -> parser.skipChildren();
                }
            }
            tensors.add(new TensorCrcs(required("name", name, tensors.size()), crc(required("crc32c", crc32c, tensors.size())),
                    rows, columns));
        }
        return tensors;
    }

    private static String required(String field, String value, int entry) {
        if (value == null) {
            throw new IllegalArgumentException("tensor entry " + entry + " needs a string '" + field + "'");
        }
        return value;
    }

    /** World size to one CRC per rank; anything but an object records no shards, as an absent field does. */
    private static Map<Integer, List<Integer>> readShards(JsonParser parser) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            parser.skipChildren();
            return Map.of();
        }
        Map<Integer, List<Integer>> read = new TreeMap<>();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            int worldSize = Integer.parseInt(parser.currentName());
            List<Integer> crcs = new ArrayList<>();
            if (parser.nextToken() == JsonToken.START_ARRAY) {
                for (JsonToken crc; (crc = parser.nextToken()) != JsonToken.END_ARRAY; ) {
                    if (crc != JsonToken.VALUE_STRING) {
                        throw new IllegalArgumentException("a CRC32C is a string of 8 hex digits, found " + crc);
                    }
                    crcs.add(crc(parser.getText()));
                }
            } else {
                parser.skipChildren();
            }
            read.put(worldSize, crcs);
        }
        return read;
    }

    private static int crc(String hex) {
        if (hex.length() != 8) {
            throw new IllegalArgumentException("a CRC32C is 8 hex digits, found '" + hex + "'");
        }
        return HEX.fromHexDigits(hex);
    }
}
