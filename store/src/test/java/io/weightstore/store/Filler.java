package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Fills a test's own file system, as other files would on a host: the room a node counted on is gone. */
public final class Filler {
    private Filler() {}

    /** Writes {@code file} until its file system has no room left. */
    public static void fill(Path file) throws IOException {
        byte[] chunk = new byte[256 << 10];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            assertThat(full).hasMessageContaining("No space left");
        }
    }
}
