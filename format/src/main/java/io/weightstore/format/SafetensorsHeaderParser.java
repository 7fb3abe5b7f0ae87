package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and validates safetensors headers from any {@link ByteRangeSource}, or from header bytes that
 * were fetched elsewhere. Every rule violation is a {@link SafetensorsFormatException}; no input makes
 * it allocate more than the header it was given (at most {@link SafetensorsHeader#MAX_HEADER_LENGTH}).
 */
public final class SafetensorsHeaderParser {
    static final String METADATA_KEY = "__metadata__";

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxStringLength((int) SafetensorsHeader.MAX_HEADER_LENGTH)
                    .build())
            .build();

    private SafetensorsHeaderParser() {}

    /** Reads the length prefix and the header with two range reads, then validates both against the file's length. */
    public static SafetensorsHeader read(ByteRangeSource source) throws IOException {
        long fileLength = source.length();
        if (fileLength < SafetensorsHeader.LENGTH_PREFIX_BYTES) {
            throw new SafetensorsFormatException(Rule.HEADER_LENGTH,
                    "file length " + fileLength + " is shorter than the 8-byte header length prefix");
        }
        ByteBuffer prefix = ByteBuffer.allocate(SafetensorsHeader.LENGTH_PREFIX_BYTES);
        source.readFully(0, prefix);
        long headerLength = headerLength(prefix.flip(), fileLength);
        byte[] header = new byte[(int) headerLength];
        source.readFully(SafetensorsHeader.LENGTH_PREFIX_BYTES, ByteBuffer.wrap(header));
        return parse(header, fileLength);
    }

    /**
     * Decodes and checks the little-endian header length N: 0 &lt; N &le; 100,000,000 and 8 + N &le; file length.
     */
    public static long headerLength(ByteBuffer prefix, long fileLength) throws SafetensorsFormatException {
        long n = prefix.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (n == 0 || Long.compareUnsigned(n, SafetensorsHeader.MAX_HEADER_LENGTH) > 0) {
            throw new SafetensorsFormatException(Rule.HEADER_LENGTH, "header length " + Long.toUnsignedString(n)
                    + " is outside 1.." + SafetensorsHeader.MAX_HEADER_LENGTH);
        }
        if (SafetensorsHeader.LENGTH_PREFIX_BYTES + n > fileLength) {
            throw new SafetensorsFormatException(Rule.HEADER_LENGTH, "header length " + n + " needs a file of at least "
                    + (SafetensorsHeader.LENGTH_PREFIX_BYTES + n) + " bytes, found " + fileLength);
        }
        return n;
    }

    /** Parses and validates header JSON of length N (the whole header, padding included). */
    public static SafetensorsHeader parse(byte[] header, long fileLength) throws SafetensorsFormatException {
        requireUtf8(header);
        if (header.length == 0 || header[0] != '{') {
            throw new SafetensorsFormatException(Rule.HEADER_JSON, "header must start with '{', found "
                    + (header.length == 0 ? "nothing" : "byte 0x" + Integer.toHexString(header[0] & 0xff)));
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        List<TensorInfo> tensors = new ArrayList<>();
        try (JsonParser json = JSON.createParser(header)) {
            expect(json.nextToken(), JsonToken.START_OBJECT, "the header", Rule.HEADER_JSON, null);
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String key = json.currentName();
                if (key.equals(METADATA_KEY)) {
                    readMetadata(json, metadata);
                } else if (tensors.size() == SafetensorsHeader.MAX_TENSORS) {
                    throw new SafetensorsFormatException(Rule.TENSOR_ENTRY, "the header holds more than "
                            + SafetensorsHeader.MAX_TENSORS + " tensors, the most one file may hold");
                } else {
                    tensors.add(readTensor(json, key));
                }
            }
            if (json.nextToken() != null) {
                throw new SafetensorsFormatException(Rule.HEADER_JSON, "unexpected content after the header object at "
                        + json.currentTokenLocation().getByteOffset());
            }
        } catch (SafetensorsFormatException e) {
            throw e;
        } catch (JsonProcessingException e) {
            String message = e.getOriginalMessage();
            Rule rule = message != null && message.startsWith("Duplicate field") ? Rule.DUPLICATE_KEY : Rule.HEADER_JSON;
            throw new SafetensorsFormatException(rule, "invalid header JSON: " + message + " at byte "
                    + (e.getLocation() == null ? -1 : e.getLocation().getByteOffset()));
        } catch (IOException e) {
            throw new SafetensorsFormatException(Rule.HEADER_JSON, "invalid header JSON: " + e.getMessage());
        }
        for (TensorInfo tensor : tensors) {
            checkSize(tensor);
        }
        List<TensorInfo> inDataOrder = checkLayout(tensors, header.length, fileLength);
        return new SafetensorsHeader(header.length, metadata, inDataOrder);
    }

    private static void requireUtf8(byte[] header) throws SafetensorsFormatException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        // Decode in small chunks: validation must not double the memory a large header takes.
        ByteBuffer in = ByteBuffer.wrap(header);
        CharBuffer out = CharBuffer.allocate(8192);
        try {
            while (true) {
                var result = decoder.decode(in, out, true);
                if (result.isError()) {
                    result.throwException();
                }
                out.clear();
                if (result.isUnderflow()) {
                    break;
                }
            }
            while (decoder.flush(out).isOverflow()) {
                out.clear();
            }
        } catch (CharacterCodingException e) {
            throw new SafetensorsFormatException(Rule.HEADER_ENCODING,
                    "header is not valid UTF-8 at byte " + in.position());
        }
    }

    private static void readMetadata(JsonParser json, Map<String, String> metadata) throws IOException {
        JsonToken token = json.nextToken();
        if (token == JsonToken.VALUE_NULL) {
            return;
        }
        expect(token, JsonToken.START_OBJECT, METADATA_KEY, Rule.METADATA, null);
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String key = json.currentName();
            JsonToken value = json.nextToken();
            if (value != JsonToken.VALUE_STRING) {
                throw new SafetensorsFormatException(Rule.METADATA,
                        METADATA_KEY + " value of '" + key + "' must be a string, found " + describe(value));
            }
            metadata.put(key, json.getText());
        }
    }

    private static TensorInfo readTensor(JsonParser json, String name) throws IOException {
        expect(json.nextToken(), JsonToken.START_OBJECT, "the tensor entry", Rule.TENSOR_ENTRY, name);
        DType dtype = null;
        List<Long> shape = null;
        long[] offsets = null;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String field = json.currentName();
            JsonToken value = json.nextToken();
            switch (field) {
                case "dtype" -> dtype = readDtype(json, value, name);
                case "shape" -> shape = readIntegers(json, value, name, "shape", Rule.SHAPE);
                case "data_offsets" -> offsets = readOffsets(json, value, name);
                default -> json.skipChildren();
            }
        }
        if (dtype == null || shape == null || offsets == null) {
            String missing = dtype == null ? "dtype" : shape == null ? "shape" : "data_offsets";
            throw new SafetensorsFormatException(Rule.TENSOR_ENTRY, name, "missing field '" + missing + "'");
        }
        return new TensorInfo(name, dtype, shape, offsets[0], offsets[1]);
    }

    private static DType readDtype(JsonParser json, JsonToken value, String name) throws IOException {
        expect(value, JsonToken.VALUE_STRING, "dtype", Rule.DTYPE, name);
        String text = json.getText();
        return DType.byName(text).orElseThrow(() -> new SafetensorsFormatException(Rule.DTYPE, name,
                "unknown dtype '" + text + "', expected one of " + Arrays.toString(DType.values())));
    }

    private static long[] readOffsets(JsonParser json, JsonToken value, String name) throws IOException {
        List<Long> offsets = readIntegers(json, value, name, "data_offsets", Rule.DATA_OFFSETS);
        if (offsets.size() != 2) {
            throw new SafetensorsFormatException(Rule.DATA_OFFSETS, name,
                    "data_offsets must have 2 elements [begin, end], found " + offsets.size());
        }
        long begin = offsets.get(0);
        long end = offsets.get(1);
        if (end < begin) {
            throw new SafetensorsFormatException(Rule.DATA_OFFSETS, name,
                    "data_offsets end " + end + " is before begin " + begin);
        }
        return new long[] {begin, end};
    }

    private static List<Long> readIntegers(JsonParser json, JsonToken value, String name, String field, Rule rule)
            throws IOException {
        expect(value, JsonToken.START_ARRAY, field, rule, name);
        List<Long> values = new ArrayList<>();
        JsonToken token;
        while ((token = json.nextToken()) != JsonToken.END_ARRAY) {
            if (token != JsonToken.VALUE_NUMBER_INT) {
                throw new SafetensorsFormatException(rule, name,
                        field + " must hold non-negative integers, found " + describe(token) + " '" + json.getText() + "'");
            }
            if (json.getNumberType() == JsonParser.NumberType.BIG_INTEGER || json.getLongValue() < 0) {
                throw new SafetensorsFormatException(rule, name,
                        field + " must hold integers in 0.." + Long.MAX_VALUE + ", found " + json.getText());
            }
            values.add(json.getLongValue());
        }
        return values;
    }

    private static void checkSize(TensorInfo tensor) throws SafetensorsFormatException {
        long expected;
        try {
            expected = tensor.dtype().byteSize(tensor.numel());
        } catch (ArithmeticException e) {
            throw new SafetensorsFormatException(Rule.SHAPE, tensor.name(),
                    "shape " + tensor.shape() + " of " + tensor.dtype() + " has no valid byte size: " + e.getMessage());
        }
        if (tensor.byteSize() != expected) {
            throw new SafetensorsFormatException(Rule.DATA_OFFSETS, tensor.name(), "data_offsets [" + tensor.begin()
                    + ", " + tensor.end() + "] span " + tensor.byteSize() + " bytes, expected " + expected + " for shape "
                    + tensor.shape() + " of " + tensor.dtype());
        }
    }

    private static List<TensorInfo> checkLayout(List<TensorInfo> tensors, long headerLength, long fileLength)
            throws SafetensorsFormatException {
        List<TensorInfo> sorted = new ArrayList<>(tensors);
        sorted.sort(Comparator.comparingLong(TensorInfo::begin).thenComparingLong(TensorInfo::end));
        long expectedBegin = 0;
        String previous = null;
        for (TensorInfo tensor : sorted) {
            if (tensor.begin() < expectedBegin) {
                throw new SafetensorsFormatException(Rule.OVERLAP, tensor.name(), "data_offsets begin " + tensor.begin()
                        + " overlaps tensor '" + previous + "', which ends at " + expectedBegin);
            }
            if (tensor.begin() > expectedBegin) {
                throw new SafetensorsFormatException(Rule.HOLE, tensor.name(), "data_offsets begin " + tensor.begin()
                        + " leaves a hole: expected " + expectedBegin + (previous == null ? " (start of data)"
                        : " (end of tensor '" + previous + "')"));
            }
            expectedBegin = tensor.end();
            previous = tensor.name();
        }
        long expectedLength = SafetensorsHeader.LENGTH_PREFIX_BYTES + headerLength + expectedBegin;
        if (expectedLength != fileLength) {
            throw new SafetensorsFormatException(Rule.FILE_LENGTH, "file length " + fileLength + " does not match 8 + header "
                    + headerLength + " + data " + expectedBegin + " = " + expectedLength
                    + (fileLength < expectedLength ? " (truncated)" : " (trailing bytes)"));
        }
        return sorted;
    }

    private static void expect(JsonToken found, JsonToken expected, String what, Rule rule, String tensor)
            throws SafetensorsFormatException {
        if (found != expected) {
            throw new SafetensorsFormatException(rule, tensor,
                    what + " must be " + describe(expected) + ", found " + describe(found));
        }
    }

    private static String describe(JsonToken token) {
        if (token == null) {
            return "end of input";
        }
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> "an integer";
            case VALUE_NUMBER_FLOAT -> "a float";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.asString() == null ? token.name() : "'" + token.asString() + "'";
        };
    }
}
