package io.weightstore.weights.loader;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.format.JsonErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Maps tensor names to a {@link Split}: the first rule whose pattern matches the whole name wins,
 * else the default. Presets cover Llama-style checkpoints (Llama, Qwen2, Mistral); a JSON plan
 * covers the rest:
 *
 * <pre>{"rules": [{"pattern": "regex", "split": "dim0|dim1|replicate"}], "default": "replicate",
 *  "allowUnevenLastShard": false}</pre>
 */
public record ShardPlan(List<Rule> rules, Split fallback, boolean allowUnevenLastShard) {
    /** One pattern and its split. */
    public record Rule(Pattern pattern, Split split) {}

    private static final List<Rule> LLAMA_RULES = List.of(
            rule(".*\\.(q_proj|k_proj|v_proj|gate_proj|up_proj)\\.(weight|bias)", Split.DIM0),
            rule(".*\\.(o_proj|down_proj)\\.weight", Split.DIM1),
            rule("(.*\\.)?embed_tokens\\.weight", Split.DIM0),
            rule("lm_head\\.weight", Split.DIM0),
            rule(".*norm.*", Split.REPLICATE));

    private static final Map<String, ShardPlan> PRESETS = Map.of(
            "llama", new ShardPlan(LLAMA_RULES, Split.REPLICATE, false),
            "qwen2", new ShardPlan(LLAMA_RULES, Split.REPLICATE, false),
            "mistral", new ShardPlan(LLAMA_RULES, Split.REPLICATE, false));

    public ShardPlan {
        rules = List.copyOf(rules);
    }

    /** Every tensor whole on every rank. */
    public static ShardPlan replicateAll() {
        return new ShardPlan(List.of(), Split.REPLICATE, false);
    }

    public static ShardPlan preset(String name) {
        ShardPlan plan = PRESETS.get(name.toLowerCase(Locale.ROOT));
        if (plan == null) {
            throw new IllegalArgumentException("no shard plan preset '" + name + "'; presets: " + presetNames());
        }
        return plan;
    }

    /** A preset name, or the path of a JSON plan. */
    public static ShardPlan resolve(String presetOrFile) throws IOException {
        Path file = Path.of(presetOrFile);
        if (Files.isRegularFile(file)) {
            return fromJson(file);
        }
        if (!PRESETS.containsKey(presetOrFile.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("shard plan '" + presetOrFile + "' is neither a preset " + presetNames() + " nor "
                    + (Files.exists(file) ? "a regular file (" + file + " is a directory or special file)" : "a file (" + file
                            + " does not exist)"));
        }
        return preset(presetOrFile);
    }

    private static List<String> presetNames() {
        return PRESETS.keySet().stream().sorted().toList();
    }

    public static ShardPlan fromJson(Path file) throws IOException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(file.toFile());
        } catch (JsonProcessingException e) {
            // A usage error, as every other fault of a plan is.
            throw new IllegalArgumentException("shard plan " + file + " is not valid JSON: " + JsonErrors.describe(e), e);
        }
        if (root == null || !root.isObject() || !root.path("rules").isArray()) {
            throw new IllegalArgumentException("shard plan " + file + " must be an object with a 'rules' array");
        }
        List<Rule> rules = new ArrayList<>();
        for (JsonNode node : root.get("rules")) {
            String pattern = node.path("pattern").asText(null);
            String split = node.path("split").asText(null);
            if (pattern == null || split == null) {
                throw new IllegalArgumentException("shard plan " + file + ": each rule needs 'pattern' and 'split', found " + node);
            }
            try {
                rules.add(new Rule(Pattern.compile(pattern), split(file, split)));
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("shard plan " + file + ": bad pattern '" + pattern + "': " + e.getDescription(), e);
            }
        }
        Split fallback = root.has("default") ? split(file, root.get("default").asText()) : Split.REPLICATE;
        return new ShardPlan(rules, fallback, root.path("allowUnevenLastShard").asBoolean(false));
    }

    /** A split {@code file} names, its refusal naming the file. */
    private static Split split(Path file, String text) {
        try {
            return Split.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("shard plan " + file + ": " + e.getMessage(), e);
        }
    }

    public Split split(String tensorName) {
        for (Rule rule : rules) {
            if (rule.pattern().matcher(tensorName).matches()) {
                return rule.split();
            }
        }
        return fallback;
    }

    private static Rule rule(String pattern, Split split) {
        return new Rule(Pattern.compile(pattern), split);
    }
}
