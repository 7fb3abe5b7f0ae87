package io.weightstore.format.synth;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.model.functions.Generator;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A tiny synthetic checkpoint is a real model: plain Jlama 0.8.4 loads it, tokenizes and generates. */
class JlamaLoadsSynthTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = io.weightstore.format.DType.class, names = {"F32", "BF16"})
    void plainJlamaLoadsAndGeneratesDeterministically(io.weightstore.format.DType dtype) throws IOException {
        Path dir = tmp.resolve("tiny");
        SyntheticCheckpoint.write(SynthSpec.tiny(dtype, 5), dir, b -> {});

        Generator.Response first = generate(dir, Files.createDirectories(tmp.resolve("kv-first")));
        assertThat(first.promptTokens).isPositive();
        assertThat(first.generatedTokens).isPositive();
        assertThat(first.responseText).isNotEmpty();
        // Jlama's tokenizer keeps byte-fallback state between calls, so each run gets a freshly loaded model.
        assertThat(generate(dir, Files.createDirectories(tmp.resolve("kv-second"))).responseText).isEqualTo(first.responseText);
    }

    /** Generates with the key-value cache pages in {@code kvCache}: Jlama's own default is a /tmp directory it cannot delete. */
    private static Generator.Response generate(Path dir, Path kvCache) {
        try (AbstractModel model = ModelSupport.loadModel(dir.toFile(), kvCache.toFile(), DType.F32, DType.I8, Optional.empty(),
                Optional.empty())) {
            long[] tokens = model.getTokenizer().encode("hello world");
            assertThat(tokens).isNotEmpty();
            assertThat(model.getTokenizer().decode(tokens)).isEqualTo("hello world");
            return model.generate(UUID.randomUUID(), PromptContext.of("hello world"), 0.0f, 24, (t, f) -> {});
        }
    }
}
