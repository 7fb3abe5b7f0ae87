package io.weightstore.jlama.serve;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which request fields each endpoint implements. Every other field is refused with a 400 naming it,
 * never ignored: a client that asks for log-probabilities or JSON output must learn it gets neither.
 * A few fields are accepted at the one value that asks for nothing beyond what the server does
 * anyway ({@code "echo": false}, {@code "top_p": 1}, …), since some clients send them by default.
 */
final class Parameters {
    private Parameters() {}

    /** A value of an unimplemented field that changes nothing. */
    private record Neutral(String shown, Predicate<JsonNode> is) {}

    private static final Set<String> COMMON = Set.of("model", "max_tokens", "temperature", "n", "stop", "seed", "stream",
            "stream_options", "user");
    private static final Set<String> CHAT = Set.of("messages", "max_completion_tokens");
    private static final Set<String> COMPLETIONS = Set.of("prompt");

    private static final Neutral FALSE = new Neutral("false", v -> v.isBoolean() && !v.booleanValue());
    private static final Neutral ZERO = new Neutral("0", v -> v.isNumber() && v.decimalValue().signum() == 0);
    private static final Neutral ONE = new Neutral("1", v -> v.isNumber() && v.decimalValue().compareTo(BigDecimal.ONE) == 0);
    private static final Neutral NO_BIAS = new Neutral("{}", v -> v.isObject() && v.isEmpty());
    private static final Map<String, Neutral> NEUTRAL_CHAT = Map.of(
            "logprobs", FALSE,
            "top_p", ONE,
            "frequency_penalty", ZERO,
            "presence_penalty", ZERO,
            "logit_bias", NO_BIAS,
            "response_format", new Neutral("{\"type\":\"text\"}", v -> v.isObject() && v.size() == 1 && v.path("type").asText().equals("text")),
            "tool_choice", new Neutral("\"none\"", v -> v.isTextual() && v.textValue().equals("none")));
    private static final Map<String, Neutral> NEUTRAL_COMPLETIONS = Map.of(
            "echo", FALSE,
            "top_p", ONE,
            "frequency_penalty", ZERO,
            "presence_penalty", ZERO,
            "logit_bias", NO_BIAS,
            "best_of", ONE);

    /** Refuses the first field of the body that the endpoint does not implement, naming it. */
    static void check(Endpoint endpoint, JsonNode body) {
        Set<String> own = endpoint == Endpoint.CHAT ? CHAT : COMPLETIONS;
        Map<String, Neutral> neutral = endpoint == Endpoint.CHAT ? NEUTRAL_CHAT : NEUTRAL_COMPLETIONS;
        for (Map.Entry<String, JsonNode> field : body.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (value.isNull() || COMMON.contains(name) || own.contains(name)) {
                continue;
            }
            Neutral accepted = neutral.get(name);
            if (accepted == null) {
                throw ApiError.unsupported(name, "'" + name + "' is not supported by " + endpoint.path + " on this server");
            }
            if (!accepted.is().test(value)) {
                throw ApiError.unsupported(name, "'" + name + "' is not supported by " + endpoint.path + " on this server, except as "
                        + accepted.shown() + "; found " + Fields.describe(value));
            }
        }
    }
}
