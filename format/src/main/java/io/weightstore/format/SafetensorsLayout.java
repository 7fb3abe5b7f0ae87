package io.weightstore.format;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where each tensor goes in a file written with the reference layout: tensors ordered by descending
 * dtype width (so every tensor starts aligned to its element size), then by name; the header JSON
 * lists {@code __metadata__} first and is padded with spaces to a multiple of 8 bytes.
 *
 * @param header the header with data offsets, as a reader will see it
 * @param headerBytes the padded header JSON, exactly {@code header.headerLength()} bytes
 */
public record SafetensorsLayout(SafetensorsHeader header, byte[] headerBytes) {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int HEADER_ALIGNMENT = 8;

    static final Comparator<TensorSpec> REFERENCE_ORDER = Comparator
            .comparingInt((TensorSpec t) -> t.dtype().bits()).reversed()
            .thenComparing(TensorSpec::name);

    public static SafetensorsLayout of(List<TensorSpec> specs, Map<String, String> metadata) {
        Set<String> names = new HashSet<>();
        for (TensorSpec spec : specs) {
            if (!names.add(spec.name()) || spec.name().equals(SafetensorsHeaderParser.METADATA_KEY)) {
                throw new IllegalArgumentException("tensor names must be unique and not " + SafetensorsHeaderParser.METADATA_KEY
                        + ": name=" + spec.name());
            }
        }
        List<TensorSpec> ordered = new ArrayList<>(specs);
        ordered.sort(REFERENCE_ORDER);
        List<TensorInfo> tensors = new ArrayList<>(ordered.size());
        long offset = 0;
        for (TensorSpec spec : ordered) {
            long end = Math.addExact(offset, spec.byteSize());
            tensors.add(new TensorInfo(spec.name(), spec.dtype(), spec.shape(), offset, end));
            offset = end;
        }
        byte[] json = headerJson(tensors, metadata);
        int padded = Math.ceilDiv(json.length, HEADER_ALIGNMENT) * HEADER_ALIGNMENT;
        byte[] headerBytes = Arrays.copyOf(json, padded);
        Arrays.fill(headerBytes, json.length, padded, (byte) ' ');
        return new SafetensorsLayout(new SafetensorsHeader(padded, metadata, tensors), headerBytes);
    }

    private static byte[] headerJson(List<TensorInfo> tensors, Map<String, String> metadata) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            if (!metadata.isEmpty()) {
                json.writeObjectFieldStart(SafetensorsHeaderParser.METADATA_KEY);
                for (Map.Entry<String, String> entry : metadata.entrySet()) {
                    json.writeStringField(entry.getKey(), entry.getValue());
                }
                json.writeEndObject();
            }
            for (TensorInfo tensor : tensors) {
                json.writeObjectFieldStart(tensor.name());
                json.writeStringField("dtype", tensor.dtype().name());
                json.writeArrayFieldStart("shape");
                for (long dim : tensor.shape()) {
                    json.writeNumber(dim);
                }
                json.writeEndArray();
                json.writeArrayFieldStart("data_offsets");
                json.writeNumber(tensor.begin());
                json.writeNumber(tensor.end());
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory cannot fail", e);
        }
        return out.toByteArray();
    }
}
