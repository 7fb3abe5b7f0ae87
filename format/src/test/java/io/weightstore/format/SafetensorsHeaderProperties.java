package io.weightstore.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Mutates valid files and their length fields: each outcome is a valid parse or a
 * {@link SafetensorsFormatException}, never another exception, and the parser never asks for more
 * bytes than the file has, whatever the length field claims.
 */
class SafetensorsHeaderProperties {
    @Property(tries = 400)
    void validFilesAlwaysParse(@ForAll("validFiles") byte[] file) throws Exception {
        SafetensorsHeader header = SafetensorsFiles.parse(file);
        assertThat(header.fileLength()).isEqualTo(file.length);
    }

    @Property(tries = 2000)
    void flippedHeaderBytesParseOrFailCleanly(@ForAll("validFiles") byte[] file, @ForAll @IntRange(min = 0, max = 10_000) int at,
            @ForAll byte value) {
        byte[] mutated = file.clone();
        int headerEnd = (int) Math.min(file.length, 8 + ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
        mutated[at % headerEnd] = value;
        assertParsesOrFailsCleanly(mutated);
    }

    @Property(tries = 1000)
    void arbitraryLengthFieldsParseOrFailCleanly(@ForAll("validFiles") byte[] file, @ForAll long declaredLength) {
        byte[] mutated = file.clone();
        ByteBuffer.wrap(mutated).order(ByteOrder.LITTLE_ENDIAN).putLong(0, declaredLength);
        assertParsesOrFailsCleanly(mutated);
    }

    @Property(tries = 1000)
    void truncatedOrExtendedFilesFailCleanly(@ForAll("validFiles") byte[] file, @ForAll @IntRange(min = -5000, max = 64) int delta) {
        int length = Math.max(0, file.length + delta);
        if (length == file.length) {
            return;
        }
        assertParsesOrFailsCleanly(Arrays.copyOf(file, length));
    }

    @Property(tries = 1000)
    void randomBytesFailCleanly(@ForAll byte[] garbage) {
        assertParsesOrFailsCleanly(garbage);
    }

    private static void assertParsesOrFailsCleanly(byte[] file) {
        ByteArrayRangeSource source = new ByteArrayRangeSource(file);
        try {
            SafetensorsHeader header = SafetensorsHeaderParser.read(source);
            assertThat(header.fileLength()).isEqualTo(file.length);
        } catch (SafetensorsFormatException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        } catch (Exception other) {
            throw new AssertionError("expected a valid parse or SafetensorsFormatException, got " + other, other);
        }
        assertThat(source.largestRead()).isLessThanOrEqualTo(Math.max(8, file.length));
    }

    @Provide
    Arbitrary<byte[]> validFiles() {
        Arbitrary<TensorSpec> tensor = Combinators.combine(
                Arbitraries.strings().ofMinLength(1).ofMaxLength(12),
                Arbitraries.of(DType.class),
                Arbitraries.longs().between(0, 6).list().ofMaxSize(3))
                .as((name, dtype, shape) -> {
                    List<Long> dims = new ArrayList<>(shape);
                    // Sub-byte dtypes need an element count that fills whole bytes: append a dimension of 8.
                    if (dtype.bits() % 8 != 0) {
                        dims.add(8L);
                    }
                    return new TensorSpec(name, dtype, dims);
                });
        return tensor.list().ofMaxSize(6).uniqueElements(TensorSpec::name)
                .filter(list -> list.stream().noneMatch(t -> t.name().equals("__metadata__")))
                .map(specs -> {
                    Map<String, byte[]> data = new HashMap<>();
                    for (TensorSpec spec : specs) {
                        byte[] bytes = new byte[(int) spec.byteSize()];
                        Arrays.fill(bytes, (byte) spec.name().hashCode());
                        data.put(spec.name(), bytes);
                    }
                    return SafetensorsFiles.of(specs, Map.of("format", "pt"), data);
                });
    }
}
