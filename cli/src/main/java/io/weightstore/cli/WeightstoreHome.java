package io.weightstore.cli;

import java.nio.file.Path;

/** The local directory of the embedded store and caches: {@code $WEIGHTSTORE_HOME}, else {@code ~/.weightstore}. */
final class WeightstoreHome {
    static final String ENV = "WEIGHTSTORE_HOME";

    private WeightstoreHome() {}

    static Path resolve() {
        String home = System.getenv(ENV);
        if (home != null && !home.isBlank()) {
            return Path.of(home).toAbsolutePath();
        }
        return Path.of(System.getProperty("user.home"), ".weightstore");
    }
}
