package io.weightstore.weights.testing;

import io.weightstore.weights.Sha256;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

/** A file's SHA-256 as a manifest records it, for tests to compare with: lowercase hex. */
public final class FileSha256 {
    private FileSha256() {}

    public static String of(Path file) throws IOException {
        return Sha256.of(MemorySegment.ofArray(Files.readAllBytes(file)));
    }
}
