package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A generation request as the server understood it, every field checked.
 *
 * @param maxTokens as asked ({@code max_tokens}, or {@code max_completion_tokens} for chat), else empty
 * @param maxTokensParam the field {@code maxTokens} came from, for errors
 * @param seed the seed of choice 0; choice i uses {@code seed + i}, so choices differ yet repeat
 * @param includeUsage {@code stream_options.include_usage}: end the stream with a usage chunk
 */
record CompletionRequest(Endpoint endpoint, PromptContext prompt, OptionalInt maxTokens, String maxTokensParam,
        float temperature, int n, List<String> stop, OptionalLong seed, boolean stream, boolean includeUsage) {

    /** Choices one request may ask for: each is a whole generation, one after another. */
    static final int MAX_N = 8;
    /** OpenAI's limit on stop sequences. */
    static final int MAX_STOP = 4;
    /** OpenAI's default for the legacy completions endpoint; chat defaults to the rest of the context. */
    static final int DEFAULT_COMPLETIONS_MAX_TOKENS = 16;
    /** OpenAI's default temperature. */
    static final float DEFAULT_TEMPERATURE = 1.0f;

    static CompletionRequest parse(Endpoint endpoint, JsonNode body, ServedModel served) {
        Parameters.check(endpoint, body);
        Fields.string(body, "model").ifPresent(model -> {
            if (!model.equals(served.name())) {
                throw ApiError.modelNotFound("model", "model '" + model + "' is not served here; this server serves '"
                        + served.name() + "'");
            }
        });
        Fields.string(body, "user");
        PromptContext prompt = switch (endpoint) {
            case CHAT -> ChatPrompt.of(body, served.model());
            case COMPLETIONS -> completionsPrompt(body);
        };
        int context = served.contextLength();
        String because = " (the model's context length)";
        OptionalLong maxTokens = Fields.integer(body, "max_tokens", 1, context, because);
        String maxTokensParam = "max_tokens";
        if (endpoint == Endpoint.CHAT) {
            OptionalLong maxCompletionTokens = Fields.integer(body, "max_completion_tokens", 1, context, because);
            if (maxCompletionTokens.isPresent()) {
                if (maxTokens.isPresent() && maxTokens.getAsLong() != maxCompletionTokens.getAsLong()) {
                    throw ApiError.invalid("max_tokens", "'max_tokens' (" + maxTokens.getAsLong() + ") and 'max_completion_tokens' ("
                            + maxCompletionTokens.getAsLong() + ") disagree; give one of them");
                }
                maxTokens = maxCompletionTokens;
                maxTokensParam = "max_completion_tokens";
            }
        }
        float temperature = Fields.number(body, "temperature", 0, 2).map(Double::floatValue).orElse(DEFAULT_TEMPERATURE);
        int n = (int) Fields.integer(body, "n", 1, MAX_N, " (choices are generated one after another)").orElse(1);
        OptionalLong seed = Fields.integer(body, "seed", Long.MIN_VALUE, Long.MAX_VALUE, "");
        boolean stream = Fields.bool(body, "stream").orElse(false);
        return new CompletionRequest(endpoint, prompt,
                maxTokens.isPresent() ? OptionalInt.of((int) maxTokens.getAsLong()) : OptionalInt.empty(), maxTokensParam,
                temperature, n, stop(body), seed, stream, includeUsage(body, stream));
    }

    /**
     * Tokens to generate at most, checked against the context before any compute: prompt and
     * completion must fit in it together.
     */
    int maxTokensFor(int promptTokens, int contextLength) {
        int room = contextLength - promptTokens;
        if (room < 1) {
            throw ApiError.contextLengthExceeded(endpoint.promptParam, "the prompt has " + promptTokens
                    + " tokens, which leaves no room in the model's context of " + contextLength + " tokens; shorten it");
        }
        if (maxTokens.isPresent() && promptTokens + maxTokens.getAsInt() > contextLength) {
            throw ApiError.contextLengthExceeded(maxTokensParam, "the prompt has " + promptTokens + " tokens and '" + maxTokensParam
                    + "' asks for " + maxTokens.getAsInt() + " more: " + (promptTokens + maxTokens.getAsInt())
                    + " tokens do not fit the model's context of " + contextLength + "; ask for at most " + room
                    + " or shorten the prompt");
        }
        if (maxTokens.isPresent()) {
            return maxTokens.getAsInt();
        }
        return endpoint == Endpoint.COMPLETIONS ? Math.min(DEFAULT_COMPLETIONS_MAX_TOKENS, room) : room;
    }

    private static PromptContext completionsPrompt(JsonNode body) {
        JsonNode prompt = body.get("prompt");
        if (prompt == null || !prompt.isTextual()) {
            throw ApiError.invalid("prompt", "'prompt' is required and must be a string (this server takes one prompt per request),"
                    + " found " + (prompt == null ? "none" : Fields.describe(prompt)));
        }
        return PromptContext.of(prompt.textValue());
    }

    private static List<String> stop(JsonNode body) {
        return Fields.present(body, "stop").map(stop -> {
            List<JsonNode> values = new ArrayList<>();
            if (stop.isArray()) {
                stop.forEach(values::add);
            } else {
                values.add(stop);
            }
            if (values.isEmpty() || values.size() > MAX_STOP) {
                throw ApiError.invalid("stop", "'stop' must be a string or an array of 1 to " + MAX_STOP + " strings, found "
                        + Fields.describe(stop));
            }
            List<String> sequences = new ArrayList<>();
            for (JsonNode value : values) {
                if (!value.isTextual() || value.textValue().isEmpty()) {
                    throw ApiError.invalid("stop", "each stop sequence must be a non-empty string, found " + Fields.describe(value));
                }
                sequences.add(value.textValue());
            }
            return List.copyOf(sequences);
        }).orElse(List.of());
    }

    private static boolean includeUsage(JsonNode body, boolean stream) {
        return Fields.present(body, "stream_options").map(options -> {
            if (!stream) {
                throw ApiError.invalid("stream_options", "'stream_options' is only allowed with \"stream\": true");
            }
            if (!options.isObject()) {
                throw ApiError.invalid("stream_options", "'stream_options' must be an object, found " + Fields.describe(options));
            }
            for (Map.Entry<String, JsonNode> option : options.properties()) {
                if (!option.getKey().equals("include_usage") && !option.getValue().isNull()) {
                    throw ApiError.unsupported("stream_options." + option.getKey(), "'stream_options." + option.getKey()
                            + "' is not supported by this server; only 'include_usage' is");
                }
            }
            JsonNode include = options.path("include_usage");
            if (!include.isMissingNode() && !include.isNull() && !include.isBoolean()) {
                throw ApiError.invalid("stream_options.include_usage", "'stream_options.include_usage' must be true or false, found "
                        + Fields.describe(include));
            }
            return include.asBoolean(false);
        }).orElse(false);
    }
}
