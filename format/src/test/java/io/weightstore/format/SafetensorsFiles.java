package io.weightstore.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Builds safetensors files in memory for tests: from specs via the writer's layout, or from raw header JSON. */
final class SafetensorsFiles {
    private SafetensorsFiles() {}

    static byte[] of(List<TensorSpec> specs, Map<String, String> metadata, Map<String, byte[]> data) {
        SafetensorsLayout layout = SafetensorsLayout.of(specs, metadata);
        SafetensorsHeader header = layout.header();
        ByteBuffer file = ByteBuffer.allocate(Math.toIntExact(header.fileLength())).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(header.headerLength()).put(layout.headerBytes());
        for (TensorInfo tensor : header.tensors()) {
            file.put(data.get(tensor.name()));
        }
        return file.array();
    }

    /** A file whose header is {@code json} as given, followed by {@code dataBytes} zero bytes. */
    static byte[] raw(String json, int dataBytes) {
        byte[] header = json.getBytes(StandardCharsets.UTF_8);
        return raw(header.length, header, dataBytes);
    }

    static byte[] raw(long declaredHeaderLength, byte[] header, int dataBytes) {
        ByteBuffer file = ByteBuffer.allocate(8 + header.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        file.putLong(declaredHeaderLength).put(header);
        return file.array();
    }

    static SafetensorsHeader parse(byte[] file) throws IOException {
        return SafetensorsHeaderParser.read(new ByteArrayRangeSource(file));
    }
}
