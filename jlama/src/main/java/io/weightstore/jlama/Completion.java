package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.functions.Generator;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * One text generation on a Jlama model: greedy at temperature 0. Jlama samples with its own random
 * source, so only greedy output is reproducible.
 *
 * @param tokensPerSecond generated tokens over generation time (prompt processing excluded)
 */
public record Completion(String text, int promptTokens, int generatedTokens, String finishReason, double tokensPerSecond) {
    public static Completion generate(AbstractModel model, PromptContext prompt, int maxTokens, float temperature,
            Consumer<String> onToken) {
        // Jlama counts the prompt against the token limit: give it room for the completion asked for.
        int limit = model.getTokenizer().encode(prompt.getPrompt()).length + 1 + maxTokens;
        Generator.Response response = model.generate(UUID.randomUUID(), prompt, temperature, limit, (token, timing) -> onToken.accept(token));
        double seconds = response.generateTimeMs / 1000.0;
        return new Completion(response.responseText, response.promptTokens, response.generatedTokens,
                response.finishReason.name().toLowerCase(java.util.Locale.ROOT),
                seconds > 0 ? response.generatedTokens / seconds : 0);
    }
}
