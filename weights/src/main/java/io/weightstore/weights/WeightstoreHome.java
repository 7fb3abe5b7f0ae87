package io.weightstore.weights;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The local directory of the embedded store and caches: {@code $WEIGHTSTORE_HOME}, else
 * {@code ~/.weightstore}. The system property {@code weightstore.home} takes precedence, so tests
 * running commands in-process can point them at a temporary directory.
 */
public final class WeightstoreHome {
    public static final String ENV = "WEIGHTSTORE_HOME";
    public static final String PROPERTY = "weightstore.home";

    private WeightstoreHome() {}

    public static Path resolve() {
        String home = System.getProperty(PROPERTY, System.getenv(ENV));
        if (home != null && !home.isBlank()) {
            return Path.of(home).toAbsolutePath();
        }
        return Path.of(System.getProperty("user.home"), ".weightstore");
    }

    /**
     * The directory, created 0700 when missing: it holds the embedded store's pool and metadata, and
     * nobody else on the machine should read them. One that exists keeps its mode; it is the user's.
     */
    public static Path created() throws IOException {
        Path home = resolve();
        if (!Files.isDirectory(home)) {
            Files.createDirectories(home, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        return home;
    }
}
