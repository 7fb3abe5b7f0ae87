package io.weightstore.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The example configuration under deploy/, copied with its /etc/weightstore/ paths moved under
 * {@code dir}, where credentials directories exist (placeholders: a check only looks for them).
 */
final class ExampleConfig {
    static final String INSTALLED = "/etc/weightstore/weightstore.yaml";

    private ExampleConfig() {}

    static Path under(Path dir) throws IOException {
        Path etc = dir.resolve("etc");
        for (String role : List.of("engine", "master", "node")) {
            Path credentials = Files.createDirectories(etc.resolve(role));
            for (String file : List.of("ca.crt", "identity.crt", "identity.key")) {
                Files.writeString(credentials.resolve(file), "placeholder\n");
            }
        }
        Files.writeString(etc.resolve("tokens"), "");
        String text = Files.readString(Path.of("../deploy/config/weightstore.yaml")).replace("/etc/weightstore/", etc + "/");
        return Files.writeString(dir.resolve("weightstore.yaml"), text);
    }
}
