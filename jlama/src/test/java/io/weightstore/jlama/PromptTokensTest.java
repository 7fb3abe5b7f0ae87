package io.weightstore.jlama;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.weights.loader.LoadOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A prompt's tokens for the model, as Jlama's own encodePrompt gives them: its BOS first, once. */
class PromptTokensTest {
    @TempDir
    Path tmp;

    @Test
    void theTokensAreJlamasWithOneBosFirstWhetherOrNotThePromptStartsWithIt() throws Exception {
        SyntheticCheckpoint.write(SynthSpec.tiny(DType.F32, 5), tmp, b -> {});
        try (JlamaModels.Loaded loaded = JlamaModels.load(tmp.toString(), LoadOptions.defaults())) {
            for (String prompt : new String[] {"hello world", "<s>hello", "", "<s>", "a <s> b </s>"}) {
                PromptContext context = PromptContext.of(prompt);
                int[] tokens = PromptTokens.of(loaded.model(), context);
                assertThat(tokens).as(prompt).containsExactly(loaded.model().encodePrompt(context));
                assertThat(tokens[0]).as("the BOS first").isEqualTo(loaded.model().getConfig().bosToken);
            }
        }
    }
}
