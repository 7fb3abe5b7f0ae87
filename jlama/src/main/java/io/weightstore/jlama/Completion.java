package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.Config;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import com.github.tjake.jlama.safetensors.tokenizer.Tokenizer;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import java.util.Arrays;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One text generation on a Jlama model. It follows Jlama's own generation loop (prompt in one
 * batch, then a token at a time, stopping at an end-of-sequence token) with one difference: the
 * uniform draws of sampling come from a seeded generator, so a completion at temperature above 0 is
 * reproducible for a seed. At temperature 0 it is greedy, token for token what Jlama's
 * {@code generate} gives.
 *
 * @param tokensPerSecond generated tokens over generation time (prompt processing excluded)
 */
public record Completion(String text, int promptTokens, int generatedTokens, String finishReason, double tokensPerSecond) {
    public static Completion generate(AbstractModel model, PromptContext prompt, int maxTokens, float temperature,
            Consumer<String> onToken) {
        return generate(model, prompt, maxTokens, temperature, 0, onToken);
    }

    public static Completion generate(AbstractModel model, PromptContext prompt, int maxTokens, float temperature, long seed,
            Consumer<String> onToken) {
        Config c = model.getConfig();
        Tokenizer tokenizer = model.getTokenizer();
        long[] encoded = tokenizer.encode(prompt.getPrompt());
        if (encoded.length > 0 && encoded[0] == c.bosToken) {
            encoded = Arrays.copyOfRange(encoded, 1, encoded.length);
        }
        int[] promptTokens = new int[encoded.length + 1];
        promptTokens[0] = c.bosToken;
        for (int i = 0; i < encoded.length; i++) {
            promptTokens[i + 1] = Math.toIntExact(encoded[i]);
        }
        if (promptTokens.length >= c.contextLength) {
            throw new IllegalArgumentException("prompt of " + promptTokens.length + " tokens does not fit the model's context of "
                    + c.contextLength);
        }
        int limit = Math.min(c.contextLength, promptTokens.length + maxTokens);
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder();
        String finish = "length";
        int generated = 0;
        long start;
        try (KvBufferCache cache = new KvBufferCache(model);
                KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer();
                AbstractTensor logits = model.makeDenseTensor(c.vocabularySize)) {
            AbstractTensor last = model.batchForward(promptTokens, 0, kv);
            int next = model.sample(last.slice(last.shape().first() - 1), temperature, random.nextFloat(), logits);
            last.close();
            emit(tokenizer, next, text, onToken);
            start = System.nanoTime();
            for (int position = promptTokens.length; position < limit; position++) {
                AbstractTensor output = model.forward(next, position, kv, Optional.empty());
                generated++;
                next = model.sample(output, temperature, random.nextFloat(), logits);
                output.close();
                if (c.eosTokens.contains(next)) {
                    finish = "stop";
                    break;
                }
                emit(tokenizer, next, text, onToken);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Completion(text.toString(), promptTokens.length - 1, generated, finish, seconds > 0 ? generated / seconds : 0);
    }

    private static void emit(Tokenizer tokenizer, int token, StringBuilder text, Consumer<String> onToken) {
        String piece = tokenizer.decode(token);
        if (!tokenizer.getModel().isSpecialToken(token)) {
            text.append(piece);
            onToken.accept(piece);
        }
    }
}
