package io.weightstore.jlama.serve;

import io.weightstore.jlama.JlamaModels;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The tiny model, written and loaded once for a test class and closed after its tests: register it as a static
 * {@code @RegisterExtension} field. It loads before the class's {@code @BeforeAll} methods, so they may serve it. The
 * directory is a supplier because a static {@code @TempDir} field is only set once the class's tests begin.
 */
final class LoadedTinyModel implements BeforeAllCallback, AfterAllCallback {
    private final Supplier<Path> dir;
    private JlamaModels.Loaded loaded;
    private ServedModel served;

    LoadedTinyModel(Supplier<Path> dir) {
        this.dir = dir;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        loaded = TinyModel.load(dir.get());
        served = TinyModel.served(loaded);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        loaded.close();
    }

    ServedModel served() {
        return served;
    }

    /** A started server, ready with this model. */
    OpenAiServer serve(ServeConfig config) {
        return TinyModel.serve(served, config);
    }
}
