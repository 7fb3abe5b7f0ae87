package io.weightstore.weights;

import java.nio.file.Path;

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
}
