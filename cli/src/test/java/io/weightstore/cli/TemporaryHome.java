package io.weightstore.cli;

import io.weightstore.weights.WeightstoreHome;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Points the JVM-wide weightstore home at a directory of the test's own before each test, and back to the default after it,
 * so the commands a test runs in-process touch nothing of anyone else's. Register it as an instance field; the directory
 * is a supplier because a {@code @TempDir} field is only set once the test instance exists. It runs before the class's
 * {@code @BeforeEach} methods, so they already see the home. A class that uses it sets a JVM-wide property, so it is
 * {@code @Isolated}.
 */
final class TemporaryHome implements BeforeEachCallback, AfterEachCallback {
    private final Supplier<Path> directory;

    TemporaryHome(Supplier<Path> directory) {
        this.directory = directory;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        System.setProperty(WeightstoreHome.PROPERTY, directory.get().toString());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.clearProperty(WeightstoreHome.PROPERTY);
    }
}
