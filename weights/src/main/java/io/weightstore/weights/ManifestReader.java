package io.weightstore.weights;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.weightstore.format.FileKind;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a manifest's JSON with Jackson's streaming parser. A loader reads one manifest first thing in
 * a fresh process, where databind building its readers of the records took 0.16-0.22 s for 1.4 KB.
 *
 * <p>It reads what {@link Manifest#toJson} writes, as databind reads it: fields by their record
 * component names, unknown fields skipped (a newer writer's additions), absent or null fields null
 * (numbers 0), times ISO-8601, kinds and statuses by their JSON names. Tests pin it against databind.
 */
final class ManifestReader {
    private static final JsonFactory FACTORY = new JsonFactory();

    private ManifestReader() {}

    static Manifest read(byte[] json) throws IOException {
        try (JsonParser parser = FACTORY.createParser(json)) {
            parser.nextToken();
            try {
                return manifest(parser);
            } catch (IllegalArgumentException | DateTimeException e) {
                throw new JsonParseException(parser, e.getMessage(), e);
            }
        }
    }

    private static Manifest manifest(JsonParser parser) throws IOException {
        expectObject(parser, "a manifest");
        int schemaVersion = 0;
        CheckpointId checkpointId = null;
        String modelId = null;
        String revision = null;
        String source = null;
        CheckpointStatus status = null;
        Instant createdAt = null;
        Instant updatedAt = null;
        long totalBytes = 0;
        String error = null;
        String importedBy = null;
        int version = 0;
        List<ManifestFile> files = null;
        List<String> excluded = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "schemaVersion" -> schemaVersion = intValue(parser);
                case "checkpointId" -> checkpointId = text(parser) == null ? null : CheckpointId.of(text(parser));
                case "modelId" -> modelId = text(parser);
                case "revision" -> revision = text(parser);
                case "source" -> source = text(parser);
                case "status" -> status = text(parser) == null ? null : CheckpointStatus.valueOf(text(parser));
                case "createdAt" -> createdAt = instant(parser);
                case "updatedAt" -> updatedAt = instant(parser);
                case "totalBytes" -> totalBytes = longValue(parser);
                case "error" -> error = text(parser);
                case "importedBy" -> importedBy = text(parser);
                case "version" -> version = intValue(parser);
                case "files" -> files = array(parser, "a manifest's files", ManifestReader::file);
                case "excluded" -> excluded = array(parser, "a manifest's exclude patterns", string("an exclude pattern"));
                default -> parser.skipChildren();
            }
        }
        if (files == null) {
            throw new JsonParseException(parser, "a manifest needs its files");
        }
        return new Manifest(schemaVersion, checkpointId, modelId, revision, source, status, createdAt, updatedAt, totalBytes, error,
                importedBy, version, files, excluded);
    }

    /** A JSON array of what {@code element} reads, or null for null; {@code what} names it in an error. */
    private static <T> List<T> array(JsonParser parser, String what, Element<T> element) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        if (parser.currentToken() != JsonToken.START_ARRAY) {
            throw new JsonParseException(parser, what + " are an array, found " + parser.currentToken());
        }
        List<T> items = new ArrayList<>();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            items.add(element.read(parser));
        }
        return items;
    }

    @FunctionalInterface
    private interface Element<T> {
        T read(JsonParser parser) throws IOException;
    }

    /** An element that is a string, not null; {@code what} names it in an error. */
    private static Element<String> string(String what) {
        return parser -> {
            String text = text(parser);
            if (text == null) {
                throw new JsonParseException(parser, what + " is a string, found null");
            }
            return text;
        };
    }

    private static ManifestFile file(JsonParser parser) throws IOException {
        expectObject(parser, "a manifest's file");
        String path = null;
        long size = 0;
        String sha256 = null;
        FileKind kind = null;
        Long headerLength = null;
        Integer tensorCount = null;
        String checksumDigest = null;
        String tensorCrcsSha256 = null;
        int version = 0;
        List<ColumnLayout> columnLayouts = null;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "path" -> path = text(parser);
                case "size" -> size = longValue(parser);
                case "sha256" -> sha256 = text(parser);
                case "kind" -> kind = text(parser) == null ? null : kind(text(parser));
                case "headerLength" -> headerLength = parser.currentToken() == JsonToken.VALUE_NULL ? null : longValue(parser);
                case "tensorCount" -> tensorCount = parser.currentToken() == JsonToken.VALUE_NULL ? null : intValue(parser);
                case "checksumDigest" -> checksumDigest = text(parser);
                case "tensorCrcsSha256" -> tensorCrcsSha256 = text(parser);
                case "version" -> version = intValue(parser);
                case "columnLayouts" -> columnLayouts = array(parser, "a file's column layouts", ManifestReader::columnLayout);
                default -> parser.skipChildren();
            }
        }
        return new ManifestFile(path, size, sha256, kind, headerLength, tensorCount, checksumDigest, tensorCrcsSha256, version,
                columnLayouts);
    }

    private static ColumnLayout columnLayout(JsonParser parser) throws IOException {
        expectObject(parser, "a column layout");
        int worldSize = 0;
        List<String> tensors = null;
        long size = 0;
        String sha256 = null;
        String checksumDigest = null;
        int version = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            parser.nextToken();
            switch (field) {
                case "worldSize" -> worldSize = intValue(parser);
                case "tensors" -> tensors = array(parser, "a column layout's tensors", string("a tensor name"));
                case "size" -> size = longValue(parser);
                case "sha256" -> sha256 = text(parser);
                case "checksumDigest" -> checksumDigest = text(parser);
                case "version" -> version = intValue(parser);
                default -> parser.skipChildren();
            }
        }
        if (worldSize < 1 || tensors == null) {
            throw new JsonParseException(parser, "a column layout needs its worldSize (at least 1) and its tensors");
        }
        return new ColumnLayout(worldSize, tensors, size, sha256, checksumDigest, version);
    }

    private static void expectObject(JsonParser parser, String what) throws IOException {
        if (parser.currentToken() != JsonToken.START_OBJECT) {
            throw new JsonParseException(parser, what + " is a JSON object, found " + parser.currentToken());
        }
    }

    private static String text(JsonParser parser) throws IOException {
        return switch (parser.currentToken()) {
            case VALUE_STRING -> parser.getText();
            case VALUE_NULL -> null;
            default -> throw new JsonParseException(parser, "expected a string, found " + parser.currentToken());
        };
    }

    /** Null reads as 0, as databind reads it into a primitive. */
    private static int intValue(JsonParser parser) throws IOException {
        return parser.currentToken() == JsonToken.VALUE_NULL ? 0 : wholeNumber(parser).getIntValue();
    }

    private static long longValue(JsonParser parser) throws IOException {
        return parser.currentToken() == JsonToken.VALUE_NULL ? 0 : wholeNumber(parser).getLongValue();
    }

    private static JsonParser wholeNumber(JsonParser parser) throws JsonParseException {
        if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
            throw new JsonParseException(parser, "expected a whole number, found " + parser.currentToken());
        }
        return parser;
    }

    private static Instant instant(JsonParser parser) throws IOException {
        String text = text(parser);
        return text == null ? null : Instant.parse(text);
    }

    /** The kind whose JSON name {@link FileKind#json} is {@code text}. */
    private static FileKind kind(String text) {
        for (FileKind kind : FileKind.values()) {
            if (kind.json().equals(text)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("file kind '" + text + "' is neither 'weight' nor 'metadata'");
    }
}
