package io.weightstore.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SafetensorsRoundTripTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(DType.class)
    void everyDtypeRoundTripsHeaderAndBytes(DType dtype) throws IOException {
        // 8 elements end on a byte boundary for every width, sub-byte ones included.
        List<TensorSpec> specs = new ArrayList<>(List.of(
                new TensorSpec("matrix", dtype, List.of(2L, 4L)),
                new TensorSpec("vector", dtype, List.of(8L)),
                new TensorSpec("empty", dtype, List.of(0L)),
                new TensorSpec("empty2d", dtype, List.of(3L, 0L))));
        if (dtype.bits() % 8 == 0) {
            specs.add(new TensorSpec("scalar", dtype, List.of()));
        }
        assertRoundTrip(specs, Map.of("format", "pt", "note", "dtype " + dtype));
    }

    @Test
    void nonAsciiNamesAndMetadataRoundTrip() throws IOException {
        assertRoundTrip(List.of(
                new TensorSpec("层.0.权重", DType.F32, List.of(3L)),
                new TensorSpec("émoji🙂.weight", DType.BF16, List.of(2L, 2L)),
                new TensorSpec("quote\"and\\slash", DType.I8, List.of(5L))),
                Map.of("описание", "модель ✓"));
    }

    @Test
    void writerUsesReferenceLayout() throws IOException {
        SafetensorsHeader header = assertRoundTrip(List.of(
                new TensorSpec("b", DType.I8, List.of(3L)),
                new TensorSpec("a", DType.I8, List.of(1L)),
                new TensorSpec("c", DType.F64, List.of(1L)),
                new TensorSpec("d", DType.F16, List.of(1L))), Map.of());
        assertThat(header.tensors()).extracting(TensorInfo::name).containsExactly("c", "d", "a", "b");
        assertThat(header.headerLength() % 8).isZero();
        for (TensorInfo t : header.tensors()) {
            assertThat(t.begin() % (t.dtype().bits() / 8)).as("alignment of %s", t.name()).isZero();
        }
    }

    @Test
    void paddingIsSpacesAfterTheJson() throws IOException {
        SafetensorsLayout layout = SafetensorsLayout.of(List.of(new TensorSpec("x", DType.U8, List.of(1L))), Map.of());
        String text = new String(layout.headerBytes(), StandardCharsets.UTF_8);
        assertThat(text).startsWith("{\"x\":");
        assertThat(text.stripTrailing()).endsWith("}");
        assertThat(text.substring(text.stripTrailing().length())).matches(" *");
    }

    private SafetensorsHeader assertRoundTrip(List<TensorSpec> specs, Map<String, String> metadata) throws IOException {
        Random random = new Random(specs.hashCode());
        Map<String, byte[]> data = new HashMap<>();
        for (TensorSpec spec : specs) {
            byte[] bytes = new byte[(int) spec.byteSize()];
            random.nextBytes(bytes);
            data.put(spec.name(), bytes);
        }
        Path file = dir.resolve("t.safetensors");
        Files.deleteIfExists(file);
        SafetensorsHeader written = SafetensorsWriter.write(file, specs, metadata, data);

        SafetensorsHeader read;
        try (FileRangeSource source = FileRangeSource.open(file)) {
            read = SafetensorsHeaderParser.read(source);
            assertThat(read).isEqualTo(written);
            assertThat(source.length()).isEqualTo(read.fileLength());
            for (TensorInfo tensor : read.tensors()) {
                ByteBuffer bytes = ByteBuffer.allocate((int) tensor.byteSize());
                source.readFully(read.dataStart() + tensor.begin(), bytes);
                assertThat(bytes.array()).as("bytes of %s", tensor.name()).isEqualTo(data.get(tensor.name()));
            }
        }
        assertThat(read.metadata()).isEqualTo(metadata);
        assertThat(read.tensors()).extracting(TensorInfo::name)
                .containsExactlyInAnyOrderElementsOf(specs.stream().map(TensorSpec::name).toList());
        assertThat(SafetensorsFiles.parse(SafetensorsFiles.of(specs, metadata, data))).isEqualTo(read);
        return read;
    }
}
