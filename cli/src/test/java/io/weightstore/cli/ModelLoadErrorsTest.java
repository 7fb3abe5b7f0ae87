package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * A model whose files Jlama cannot build a model from stops {@code generate} the same way from a
 * directory and from the store: exit 1, naming the model, the file at fault and the reason, in words.
 */
@Isolated("sets the JVM-wide home, which the CLI in every other test reads")
class ModelLoadErrorsTest {
    @TempDir
    Path tmp;

    @RegisterExtension
    final TemporaryHome home = new TemporaryHome(() -> tmp.resolve("home"));

    @Test
    void aConfigThatIsNotJsonIsNamedWithJacksonsReasonAndNoneOfItsNoise() throws IOException {
        Path model = brokenModel("config-eof", "config.json", config -> "{");
        assertRefused(model.toString(), "config.json: Unexpected end-of-input", "(line 1, column 2)");
        // The store never holds such a checkpoint: its import refuses the config, naming where it breaks.
        CliRun imported = CliRun.of("model", "import", "--source", model.toString(), "--checkpoint-id", "config-eof",
                "--model-id", "t/config-eof");
        assertThat(imported.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(imported.err()).contains("config.json is not valid JSON: Unexpected end-of-input", "(line 1, column 2)")
                .doesNotContain("REDACTED");
    }

    @Test
    void aTokenizerThatIsNotJsonIsNamedThoughJlamaReadsItByReflection() throws IOException {
        Path model = brokenModel("tokenizer-eof", "tokenizer.json", tokenizer -> "{");
        assertRefusedFromDirectoryAndStore(model, "tokenizer.json: Unexpected end-of-input");
    }

    @Test
    void aMissingTokenizerIsNamed() throws IOException {
        Path model = brokenModel("no-tokenizer", "tokenizer.json", tokenizer -> tokenizer);
        Files.delete(model.resolve("tokenizer.json"));
        assertRefusedFromDirectoryAndStore(model, "tokenizer.json: No tokenizer.json found");
    }

    @Test
    void aModelTypeJlamaDoesNotRunIsNamedWithTheOnesItDoes() throws IOException {
        Path model = brokenModel("foo-type", "config.json",
                config -> config.replaceFirst("\"model_type\"\\s*:\\s*\"llama\"", "\"model_type\": \"foo\""));
        assertRefusedFromDirectoryAndStore(model, "config.json: model_type foo is not one Jlama runs (", "llama", "qwen2");
    }

    @Test
    void aHiddenSizeTheWeightsDoNotHaveIsRefusedAtLoadNotAtTheFirstToken() throws IOException {
        Path model = brokenModel("narrow", "config.json",
                config -> config.replaceFirst("\"hidden_size\"\\s*:\\s*64", "\"hidden_size\": 32"));
        assertRefusedFromDirectoryAndStore(model,
                "config.json: it gives a hidden size of 32, but the weights' model.embed_tokens.weight is [512, 64]");
    }

    /** The tiny model, with one of its files rewritten. */
    private Path brokenModel(String name, String file, UnaryOperator<String> rewrite) throws IOException {
        Path model = tmp.resolve(name);
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 9), model, b -> {});
        Files.writeString(model.resolve(file), rewrite.apply(Files.readString(model.resolve(file))));
        return model;
    }

    private static void assertRefusedFromDirectoryAndStore(Path model, String... reason) {
        String id = model.getFileName().toString();
        CliRun imported = CliRun.of("model", "import", "--source", model.toString(), "--checkpoint-id", id,
                "--model-id", "t/" + id);
        assertThat(imported.exitCode()).as(imported.err()).isZero();
        for (String reference : new String[] {model.toString(), "weightstore://" + id}) {
            assertRefused(reference, reason);
        }
    }

    private static void assertRefused(String reference, String... reason) {
        CliRun run = CliRun.of("generate", "--model", reference, "--prompt", "hello", "--max-tokens", "2");
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.FAILURE);
        assertThat(run.err()).contains("error: model " + reference + " cannot be loaded: ").contains(reason)
                .doesNotContainPattern("[A-Za-z]+(Exception|Error)\\b").doesNotContain("REDACTED");
    }
}
