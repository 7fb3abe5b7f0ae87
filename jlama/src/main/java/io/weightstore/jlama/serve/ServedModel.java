package io.weightstore.jlama.serve;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.jlama.ContextWindow;
import io.weightstore.jlama.PromptTokens;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The model behind the API, under the name clients use for it.
 *
 * @param turns taken around every pass through the model, fairly, so that generations in progress
 *     at once advance in turn rather than race on the model's scratch tensors
 * @param created when it was loaded, in seconds since the epoch, as {@code /v1/models} reports it
 * @param longestToken the characters of the vocabulary's longest token: no prompt longer than the context
 *     times this can fit it, however it is tokenized
 */
public record ServedModel(AbstractModel model, String name, Lock turns, long created, int longestToken) {
    private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._-]");
    private static final Pattern VALID_NAME = Pattern.compile("[\\x21-\\x7e]{1,256}");

    public ServedModel {
        checkName(name);
    }

    /** Refuses a name clients could not send, before there is a model to give it (a server checks it before it starts). */
    public static void checkName(String name) {
        if (!VALID_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a served model name must be 1 to 256 printable ASCII characters without spaces, found '"
                    + name + "'");
        }
    }

    public static ServedModel of(AbstractModel model, String name) {
        int longest = model.getTokenizer().getModel().vocabLookup.keySet().stream().mapToInt(String::length).max().orElse(1);
        return new ServedModel(model, name, new ReentrantLock(true), Instant.now().getEpochSecond(), Math.max(1, longest));
    }

    /** A model name safe in URLs and JSON, from a checkpoint id or a directory name. */
    public static String nameFor(String reference) {
        String base = reference.startsWith("weightstore://") ? reference.substring("weightstore://".length())
                : Path.of(reference).toAbsolutePath().normalize().getFileName().toString();
        String safe = UNSAFE.matcher(base).replaceAll("-");
        return safe.isEmpty() ? "model" : safe;
    }

    /** Tokens the model holds at once, prompt and completion together (see {@link ContextWindow}). */
    int contextLength() {
        return ContextWindow.tokens(model);
    }

    /** Characters beyond which a prompt cannot fit the context, whatever its tokens. */
    long longestPrompt() {
        return (long) contextLength() * longestToken;
    }

    int[] encode(PromptContext prompt) {
        return PromptTokens.of(model, prompt);
    }
}
