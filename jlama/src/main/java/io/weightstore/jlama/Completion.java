package io.weightstore.jlama;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.Config;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import com.github.tjake.jlama.safetensors.tokenizer.TokenizerModel;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * One text generation on a Jlama model. It follows Jlama's own generation loop (prompt in one
 * batch, then a token at a time, stopping at an end-of-sequence token) with these differences: the
 * uniform draws of sampling come from a seeded generator, so a completion at temperature above 0 is
 * reproducible for a seed; at most {@code maxTokens} tokens are produced (Jlama's loop produces one
 * more than it is asked for); the text can end at a stop sequence; and tokens are decoded by a
 * {@link TokenText} of the generation's own, so the text of a generation never depends on the ones
 * before it. At temperature 0 it is greedy, token for token what Jlama's {@code generate} gives.
 *
 * @param tokens the tokens sampled, end-of-sequence excluded
 * @param promptTokens tokens of the prompt as the model saw them, beginning-of-sequence included
 * @param finishReason {@code stop} at an end-of-sequence token or a stop sequence, {@code length} at the limit
 * @param tokensPerSecond tokens after the first over the time they took (prompt processing excluded)
 */
public record Completion(String text, List<Integer> tokens, int promptTokens, String finishReason, double tokensPerSecond) {
    public Completion {
        tokens = List.copyOf(tokens);
    }

    public int generatedTokens() {
        return tokens.size();
    }

    /**
     * How to continue a prompt.
     *
     * @param seed seeds the uniform draws of sampling (unused at temperature 0)
     * @param stop strings that end the text when it would contain one; the text stops before it
     */
    public record Sampling(int maxTokens, float temperature, long seed, List<String> stop) {
        public Sampling {
            if (maxTokens < 1) {
                throw new IllegalArgumentException("maxTokens must be >= 1, found " + maxTokens);
            }
            if (!(temperature >= 0)) {
                throw new IllegalArgumentException("temperature must be >= 0, found " + temperature);
            }
            stop = List.copyOf(stop);
        }
    }

    public static Completion generate(AbstractModel model, PromptContext prompt, int maxTokens, float temperature,
            Consumer<String> onText) {
        return generate(model, prompt, maxTokens, temperature, 0, onText);
    }

    public static Completion generate(AbstractModel model, PromptContext prompt, int maxTokens, float temperature, long seed,
            Consumer<String> onText) {
        return generate(model, PromptTokens.of(model, prompt), new Sampling(maxTokens, temperature, seed, List.of()),
                new ReentrantLock(), onText);
    }

    /**
     * @param promptTokens the prompt as {@link PromptTokens#of} gives it
     * @param turns held around each pass through the model: Jlama's layers keep scratch tensors of
     *     their own, so two passes on one model at once would overwrite each other's; generations
     *     that share a model share its lock
     * @param onText receives the text as it grows; an exception it throws ends the generation and
     *     reaches the caller
     */
    public static Completion generate(AbstractModel model, int[] promptTokens, Sampling sampling, Lock turns,
            Consumer<String> onText) {
        Config c = model.getConfig();
        int context = ContextWindow.tokens(model);
        int room = context - promptTokens.length;
        if (room < 1) {
            throw new IllegalArgumentException("prompt of " + promptTokens.length + " tokens leaves no room in the model's context of "
                    + context + " tokens");
        }
        int limit = Math.min(sampling.maxTokens(), room);
        TokenizerModel vocabulary = model.getTokenizer().getModel();
        TokenText decoder = new TokenText(model.getTokenizer());
        SplittableRandom random = new SplittableRandom(sampling.seed());
        StopSequences text = new StopSequences(sampling.stop(), onText);
        String finish = "length";
        List<Integer> tokens = new ArrayList<>();
        boolean cut = false;
        long firstTokenAt;
        try (KvBufferCache cache = new KvBufferCache(model);
                KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer();
                AbstractTensor logits = model.makeDenseTensor(c.vocabularySize)) {
            int next;
            turns.lock();
            try (AbstractTensor last = model.batchForward(promptTokens, 0, kv)) {
                next = model.sample(last.slice(last.shape().first() - 1), sampling.temperature(), random.nextFloat(), logits);
            } finally {
                turns.unlock();
            }
            firstTokenAt = System.nanoTime();
            while (true) {
                if (c.eosTokens.contains(next)) {
                    finish = "stop";
                    break;
                }
                tokens.add(next);
                if (!vocabulary.isSpecialToken(next) && text.append(decoder.decode(next))) {
                    finish = "stop";
                    cut = true;
                    break;
                }
                if (tokens.size() == limit) {
                    break;
                }
                turns.lock();
                try (AbstractTensor output = model.forward(next, promptTokens.length + tokens.size() - 1, kv, Optional.empty())) {
                    next = model.sample(output, sampling.temperature(), random.nextFloat(), logits);
                } finally {
                    turns.unlock();
                }
            }
        }
        if (!cut) {
            // Bytes of an unfinished character become U+FFFD, which a stop sequence may still end with.
            if (text.append(decoder.finish())) {
                finish = "stop";
            } else {
                text.finish();
            }
        }
        double seconds = (System.nanoTime() - firstTokenAt) / 1e9;
        return new Completion(text.text(), tokens, promptTokens.length, finish,
                tokens.size() > 1 && seconds > 0 ? (tokens.size() - 1) / seconds : 0);
    }
}
