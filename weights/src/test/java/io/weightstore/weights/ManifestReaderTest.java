package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.FileKind;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming reader must read every manifest exactly as databind reads it (the way manifests were
 * read before it, and still are written): what {@link Manifest#toJson} writes, older manifests
 * without schema 2's fields, and a newer writer's unknown fields.
 */
class ManifestReaderTest {
    private static final ObjectMapper DATABIND = Json.mapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private static final ManifestFile WEIGHTS = new ManifestFile("model-00001-of-00002.safetensors", 4_294_967_296L + 17,
            "ab".repeat(32), FileKind.WEIGHT, 1_024L, 291, "cd".repeat(32), "ef".repeat(32), 6,
            List.of(new ColumnLayout(4, List.of("model.layers.0.mlp.down_proj.weight", "model.layers.0.self_attn.o_proj.weight"),
                    3L << 32, "12".repeat(32), "34".repeat(32), 5)));
    private static final Manifest FULL = new Manifest(Manifest.SCHEMA_VERSION, new CheckpointId("org.model-v1_2"), "org/model",
            "0123abc", "/models/org model \"v1\"", CheckpointStatus.READY, Instant.parse("2026-11-30T14:30:37.123456789Z"),
            Instant.parse("2026-11-30T14:31:00Z"), Long.MAX_VALUE, "an error\nwith a newline and \u00e9", "CN=importer, O=weights",
            7, List.of(WEIGHTS, new ManifestFile("config.json", 0, "00".repeat(32), FileKind.METADATA, null, null)),
            List.of("original/", "*.pth"));

    private static Manifest databind(byte[] json) throws IOException {
        return DATABIND.readValue(json, Manifest.class);
    }

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsEveryFieldTheWriterWrites() throws Exception {
        // Every component set, so a component added to either record and not to the reader fails here.
        for (RecordComponent component : Manifest.class.getRecordComponents()) {
            assertThat(component.getAccessor().invoke(FULL)).as(component.getName()).isNotNull();
        }
        for (RecordComponent component : ManifestFile.class.getRecordComponents()) {
            assertThat(component.getAccessor().invoke(WEIGHTS)).as(component.getName()).isNotNull();
        }
        assertThat(ManifestReader.read(FULL.toJson())).isEqualTo(FULL).isEqualTo(databind(FULL.toJson()));
    }

    @Test
    void readsASchemaOneManifestAsDatabindDoes() throws Exception {
        byte[] json = utf8("""
                {"schemaVersion":1,"checkpointId":"old","modelId":"m","source":"/src","status":"READY",
                 "createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-02T00:00:00Z","totalBytes":10,
                 "files":[{"path":"model.safetensors","size":10,"sha256":"aa","kind":"weight","headerLength":8,"tensorCount":1}]}
                """);
        assertThat(ManifestReader.read(json)).isEqualTo(databind(json)).satisfies(m -> {
            assertThat(m.importedBy()).isNull();
            assertThat(m.revision()).isNull();
            assertThat(m.files().getFirst().checksumDigest()).isNull();
            assertThat(m.version()).as("a manifest from before versions is the first version").isZero();
            assertThat(m.files().getFirst().version()).isZero();
        });
    }

    @Test
    void skipsUnknownFieldsAndReadsNullsAsDatabindDoes() throws Exception {
        byte[] json = utf8("""
                {"future":{"nested":[1,{"a":null}],"x":"y"},"schemaVersion":2,"checkpointId":"c","modelId":null,"status":"IMPORTING",
                 "createdAt":null,"totalBytes":null,"later":[[]],
                 "files":[{"path":"a.bin","extra":{"k":[true,false]},"size":3,"kind":"weight","headerLength":null,"tensorCount":null},
                          {"path":"b.json","size":1,"kind":null}],
                 "trailing":"field"}
                """);
        assertThat(ManifestReader.read(json)).isEqualTo(databind(json));
    }

    @Test
    void readsAManifestWithNoFilesAsDatabindDoes() throws Exception {
        byte[] json = utf8("{\"schemaVersion\":2,\"checkpointId\":\"empty\",\"status\":\"READY\",\"files\":[]}");
        assertThat(ManifestReader.read(json)).isEqualTo(databind(json));
    }

    @Test
    void aFileOfAVersionNoImportWroteIsRefusedAsCorrupt() {
        for (int version : new int[] {-1, FULL.version() + 1}) {
            Manifest odd = FULL.withFile(WEIGHTS.stored(version, WEIGHTS.sha256(), WEIGHTS.checksumDigest(), WEIGHTS.tensorCrcsSha256()),
                    FULL.updatedAt());
            CatalogContract.assertCheckpointError(() -> Manifest.fromJson(odd.toJson(), "weights/m/manifest"),
                    CheckpointException.Code.CORRUPT, "names " + WEIGHTS.path() + " as stored by version " + version);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "not json",
        "[]",
        "{\"checkpointId\":\"c\"",
        "{\"checkpointId\":\"c\"}",
        "{\"checkpointId\":\"c\",\"files\":null}",
        "{\"checkpointId\":\"c\",\"files\":{}}",
        "{\"checkpointId\":\"c\",\"files\":[null]}",
        "{\"checkpointId\":\"c\",\"files\":[[]]}",
        "{\"checkpointId\":\"c/../d\",\"files\":[]}",
        "{\"checkpointId\":\"c\",\"status\":\"DONE\",\"files\":[]}",
        "{\"checkpointId\":\"c\",\"createdAt\":\"yesterday\",\"files\":[]}",
        "{\"checkpointId\":\"c\",\"files\":[{\"path\":\"a\",\"kind\":\"weights\"}]}",
        "{\"checkpointId\":\"c\",\"files\":[{\"path\":\"a\",\"size\":{}}]}",
        "{\"checkpointId\":\"c\",\"schemaVersion\":4294967296,\"files\":[]}",
        "{\"checkpointId\":[\"c\"],\"files\":[]}",
        "{\"checkpointId\":\"c\",\"files\":[],\"excluded\":{}}",
        "{\"checkpointId\":\"c\",\"files\":[],\"excluded\":\"original/\"}",
        "{\"checkpointId\":\"c\",\"files\":[],\"excluded\":[null]}",
    })
    void refusesWhatDatabindRefuses(String json) {
        assertThatThrownBy(() -> databind(utf8(json))).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ManifestReader.read(utf8(json))).isInstanceOf(IOException.class);
    }

    @Test
    void fromJsonCallsWhatItCannotReadCorrupt() {
        assertThatThrownBy(() -> Manifest.fromJson(utf8("{\"checkpointId\":\"c\",\"status\":\"DONE\",\"files\":[]}"), "k"))
                .isInstanceOfSatisfying(CheckpointException.class, e ->
                        assertThat(e.code()).isEqualTo(CheckpointException.Code.CORRUPT))
                .hasMessageContaining("manifest k is not a manifest");
    }

    @Provide
    Arbitrary<Manifest> manifests() {
        Arbitrary<String> text = Arbitraries.strings().withCharRange('\u0000', '\ud7ff').ofMaxLength(40).injectNull(0.2);
        Arbitrary<Instant> times = Arbitraries.longs().between(-62_000_000_000L, 250_000_000_000L)
                .flatMap(s -> Arbitraries.integers().between(0, 999_999_999).map(n -> Instant.ofEpochSecond(s, n))).injectNull(0.2);
        Arbitrary<ManifestFile> files = Combinators.combine(text, Arbitraries.longs().greaterOrEqual(0), text,
                Arbitraries.of(FileKind.class).injectNull(0.1), Arbitraries.longs().greaterOrEqual(0).injectNull(0.3),
                Arbitraries.integers().greaterOrEqual(0).injectNull(0.3), text, text).as(ManifestFile::new)
                .flatMap(f -> Arbitraries.integers().between(0, Integer.MAX_VALUE).map(v -> f.stored(v, f.sha256(), f.checksumDigest(),
                        f.tensorCrcsSha256())));
        Arbitrary<CheckpointId> ids = Arbitraries.strings().withChars("abz09._-").ofMinLength(0).ofMaxLength(20)
                .map(s -> new CheckpointId("a" + s));
        Arbitrary<String> patterns = Arbitraries.strings().withCharRange('\u0000', '\ud7ff').ofMinLength(1).ofMaxLength(20);
        return Combinators.combine(Arbitraries.integers().between(0, Manifest.SCHEMA_VERSION), ids, text, text, text,
                Arbitraries.of(CheckpointStatus.class), times, times).flatAs((schema, id, model, revision, source, status, created,
                        updated) -> Combinators.combine(Arbitraries.longs(), text, text, Arbitraries.integers().between(0,
                                Integer.MAX_VALUE), files.list().ofMaxSize(4), patterns.list().ofMaxSize(3))
                                .as((total, error, importer, version, list, excluded) -> new Manifest(schema, id, model, revision,
                                        source, status, created, updated, total, error, importer, version, list, excluded)));
    }

    @Property(tries = 300)
    void readsWhateverTheWriterWritesAsDatabindDoes(@ForAll("manifests") Manifest manifest) throws IOException {
        byte[] json = manifest.toJson();
        assertThat(ManifestReader.read(json)).isEqualTo(manifest).isEqualTo(databind(json));
    }
}
