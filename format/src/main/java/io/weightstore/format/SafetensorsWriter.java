package io.weightstore.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

/**
 * Writes a safetensors file in the reference layout, streaming each tensor's bytes from a
 * {@link TensorContent} so a file of any size is written with bounded memory. The file appears
 * under its name only once complete.
 */
public final class SafetensorsWriter {
    /** Supplies one tensor's bytes; must write exactly {@code tensor.byteSize()} bytes to {@code out}. */
    @FunctionalInterface
    public interface TensorContent {
        void write(TensorInfo tensor, FileChannel out) throws IOException;
    }

    private SafetensorsWriter() {}

    public static SafetensorsHeader write(Path file, List<TensorSpec> tensors, Map<String, String> metadata,
            TensorContent content) throws IOException {
        SafetensorsLayout layout = SafetensorsLayout.of(tensors, metadata);
        SafetensorsHeader header = layout.header();
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try {
            try (FileChannel out = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                writeContents(out, layout, content);
            }
            // Inside the try: a move that fails (a directory under the file's name) must not leave the sibling behind either.
            Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        return header;
    }

    private static void writeContents(FileChannel out, SafetensorsLayout layout, TensorContent content) throws IOException {
        SafetensorsHeader header = layout.header();
        ByteBuffer prefix = ByteBuffer.allocate(SafetensorsHeader.LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        writeFully(out, prefix.putLong(0, header.headerLength()));
        writeFully(out, ByteBuffer.wrap(layout.headerBytes()));
        for (TensorInfo tensor : header.tensors()) {
            long expectedEnd = header.dataStart() + tensor.end();
            content.write(tensor, out);
            if (out.position() != expectedEnd) {
                throw new IllegalStateException("content for tensor '" + tensor.name() + "' wrote "
                        + (out.position() - header.dataStart() - tensor.begin()) + " bytes, expected " + tensor.byteSize());
            }
        }
    }

    /** Writes tensors whose bytes are in memory, keyed by name. */
    public static SafetensorsHeader write(Path file, List<TensorSpec> tensors, Map<String, String> metadata,
            Map<String, byte[]> data) throws IOException {
        return write(file, tensors, metadata, (tensor, out) -> writeFully(out, ByteBuffer.wrap(data.get(tensor.name()))));
    }

    public static void writeFully(FileChannel out, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            out.write(buffer);
        }
    }
}
