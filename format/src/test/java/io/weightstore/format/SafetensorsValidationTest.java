package io.weightstore.format;

import static io.weightstore.format.SafetensorsFiles.parse;
import static io.weightstore.format.SafetensorsFiles.raw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.SafetensorsFormatException.Rule;
import java.io.IOException;
import java.util.Arrays;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SafetensorsValidationTest {
    private static final String A = "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";

    static Stream<Arguments> invalidFiles() {
        return Stream.of(
                broken("file shorter than the length prefix", new byte[5], Rule.HEADER_LENGTH, null, "shorter than the 8-byte"),
                broken("zero header length", raw(0, new byte[0], 0), Rule.HEADER_LENGTH, null, "header length 0"),
                broken("header length above the limit", raw(100_000_001L, new byte[0], 0), Rule.HEADER_LENGTH, null,
                        "100000001 is outside 1..100000000"),
                broken("header length with the top bit set", raw(-1L, new byte[0], 0), Rule.HEADER_LENGTH, null,
                        "18446744073709551615"),
                broken("header length past the end of the file", raw(64, "{}".getBytes(), 0), Rule.HEADER_LENGTH, null,
                        "at least 72 bytes, found 10"),
                broken("invalid UTF-8", raw(4, new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'}, 0), Rule.HEADER_ENCODING,
                        null, "not valid UTF-8"),
                broken("a JSON array", raw("[]", 0), Rule.HEADER_JSON, null, "must start with '{'"),
                broken("leading whitespace", raw(" {}", 0), Rule.HEADER_JSON, null, "must start with '{'"),
                broken("unterminated JSON", raw("{\"a\":", 0), Rule.HEADER_JSON, null, "invalid header JSON"),
                broken("content after the object", raw("{} {}", 0), Rule.HEADER_JSON, null, "after the header object"),
                broken("duplicate tensor", raw("{" + A + "," + A + "}", 8), Rule.DUPLICATE_KEY, null, "Duplicate field 'a'"),
                broken("duplicate field in a tensor",
                        raw("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8),
                        Rule.DUPLICATE_KEY, null, "Duplicate field 'dtype'"),
                broken("metadata not an object", raw("{\"__metadata__\":[1]}", 0), Rule.METADATA, null, "must be an object"),
                broken("metadata value not a string", raw("{\"__metadata__\":{\"k\":1}}", 0), Rule.METADATA, null,
                        "value of 'k' must be a string, found an integer"),
                broken("tensor entry not an object", raw("{\"a\":1}", 0), Rule.TENSOR_ENTRY, "a", "must be an object"),
                broken("missing data_offsets", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 0), Rule.TENSOR_ENTRY, "a",
                        "missing field 'data_offsets'"),
                broken("unknown dtype", raw("{\"a\":{\"dtype\":\"F31\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8),
                        Rule.DTYPE, "a", "unknown dtype 'F31'"),
                broken("lower-case dtype", raw("{\"a\":{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8),
                        Rule.DTYPE, "a", "unknown dtype 'f32'"),
                broken("negative dimension", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8),
                        Rule.SHAPE, "a", "found -2"),
                broken("fractional dimension", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", 8),
                        Rule.SHAPE, "a", "found a float"),
                broken("dimension beyond a long",
                        raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999],\"data_offsets\":[0,8]}}", 8),
                        Rule.SHAPE, "a", "99999999999999999999"),
                broken("element count overflows",
                        raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8),
                        Rule.SHAPE, "a", "no valid byte size"),
                broken("sub-byte tensor not ending on a byte",
                        raw("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2), Rule.SHAPE, "a",
                        "12 bits, not a whole number of bytes"),
                broken("size does not match the shape",
                        raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,12]}}", 12), Rule.DATA_OFFSETS, "a",
                        "span 12 bytes, expected 8"),
                broken("end before begin", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8),
                        Rule.DATA_OFFSETS, "a", "end 0 is before begin 8"),
                broken("three offsets", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,16]}}", 8),
                        Rule.DATA_OFFSETS, "a", "must have 2 elements"),
                broken("overlapping tensors", raw("{" + A
                        + ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12), Rule.OVERLAP, "b",
                        "overlaps tensor 'a', which ends at 8"),
                broken("hole between tensors", raw("{" + A
                        + ",\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[12,20]}}", 20), Rule.HOLE, "b",
                        "expected 8 (end of tensor 'a')"),
                broken("data not starting at 0", raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12),
                        Rule.HOLE, "a", "expected 0 (start of data)"),
                broken("more tensors than a file may hold", raw(emptyTensors(SafetensorsHeader.MAX_TENSORS + 1), 0),
                        Rule.TENSOR_ENTRY, null, "more than " + SafetensorsHeader.MAX_TENSORS + " tensors"),
                broken("truncated data", raw("{" + A + "}", 7), Rule.FILE_LENGTH, null, "(truncated)"),
                broken("trailing bytes", raw("{" + A + "}", 9), Rule.FILE_LENGTH, null, "(trailing bytes)"));
    }

    /** A header of {@code count} tensors of no bytes, all at offset 0, which is valid up to the limit on their number. */
    private static String emptyTensors(int count) {
        StringBuilder header = new StringBuilder("{");
        for (int i = 0; i < count; i++) {
            header.append(i == 0 ? "" : ",").append("\"t").append(i).append("\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}");
        }
        return header.append('}').toString();
    }

    private static Arguments broken(String what, byte[] file, Rule rule, String tensor, String message) {
        return Arguments.of(what, file, rule, tensor, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidFiles")
    void invalidFileNamesTheBrokenRule(String what, byte[] file, Rule rule, String tensor, String message) {
        assertThatThrownBy(() -> parse(file))
                .asInstanceOf(InstanceOfAssertFactories.throwable(SafetensorsFormatException.class))
                .satisfies(e -> {
                    assertThat(e.rule()).isEqualTo(rule);
                    assertThat(e.tensor().orElse(null)).isEqualTo(tensor);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    @Test
    void acceptsEmptyHeaderPaddingMetadataNullAndUnknownFields() throws IOException {
        assertThat(parse(raw("{}", 0)).tensors()).isEmpty();
        assertThat(parse(raw("{}      ", 0)).headerLength()).isEqualTo(8);
        assertThat(parse(raw("{\"__metadata__\":null}", 0)).metadata()).isEmpty();
        SafetensorsHeader header = parse(raw(
                "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"extra\":{\"x\":[1,2]}}}", 8));
        assertThat(header.tensors()).singleElement().satisfies(t -> assertThat(t.byteSize()).isEqualTo(8));
    }

    @Test
    void acceptsScalarsAndEmptyTensorsSharingAnOffset() throws IOException {
        SafetensorsHeader header = parse(raw("{"
                + "\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]},"
                + "\"e1\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,8]},"
                + "\"e2\":{\"dtype\":\"I8\",\"shape\":[4,0],\"data_offsets\":[8,8]},"
                + "\"b\":{\"dtype\":\"BOOL\",\"shape\":[1],\"data_offsets\":[8,9]}}", 9));
        assertThat(header.tensors()).extracting(TensorInfo::name).containsExactly("s", "e1", "e2", "b");
        assertThat(header.dataLength()).isEqualTo(9);
    }

    @Test
    void readsOnlyTheDeclaredHeaderNeverTheClaimedLength() throws IOException {
        byte[] file = raw("{" + A + "}", 8);
        ByteArrayRangeSource source = new ByteArrayRangeSource(file);
        SafetensorsHeaderParser.read(source);
        assertThat(source.largestRead()).isEqualTo(file.length - 8 - 8);

        byte[] lying = Arrays.copyOf(raw(50_000_000, "{}".getBytes(), 0), 10);
        ByteArrayRangeSource small = new ByteArrayRangeSource(lying);
        assertThatThrownBy(() -> SafetensorsHeaderParser.read(small)).isInstanceOf(SafetensorsFormatException.class);
        assertThat(small.largestRead()).isEqualTo(8);
    }

    @Test
    void fileContextIsAddedWithoutLosingTheRule() {
        SafetensorsFormatException e = new SafetensorsFormatException(Rule.HOLE, "t", "gap").inFile("model.safetensors");
        assertThat(e.rule()).isEqualTo(Rule.HOLE);
        assertThat(e.tensor()).contains("t");
        assertThat(e.getMessage()).isEqualTo("model.safetensors: tensor 't': gap [hole]");
    }
}
