package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A bench's scratch directory (pools, peers' files), removed with everything in it when the bench ends. */
public final class WorkDirectory {
    private WorkDirectory() {}

    /** Removes {@code dir}, if there is one, and makes it again, empty. */
    public static void recreate(Path dir) throws IOException {
        if (Files.exists(dir)) {
            delete(dir);
        }
        Files.createDirectories(dir);
    }

    public static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
