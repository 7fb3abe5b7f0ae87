package io.weightstore.cli;

import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.jlama.Completion;
import io.weightstore.jlama.JlamaModels;
import io.weightstore.weights.loader.LoadOptions;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore generate}: one completion from a model in the store or a local directory, with Jlama. */
@Command(name = "generate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Generate a completion with Jlama from weightstore://ID or a local model directory.",
            "From the store, weights stream into memory and config and tokenizer are materialized locally.",
            "Prints the completion, the load time and tokens/s.",
            "Temperature 0 is greedy; above 0, sampling is reproducible for a --seed."
        })
final class GenerateCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Option(names = "--model", required = true, paramLabel = "weightstore://ID|DIR", description = "The model to run.")
    private String model;

    @Option(names = "--prompt", required = true, paramLabel = "TEXT", description = "The prompt to complete.")
    private String prompt;

    @Option(names = "--max-tokens", defaultValue = "64", paramLabel = "N", description = "Tokens to generate at most. Default: ${DEFAULT-VALUE}.")
    private int maxTokens;

    @Option(names = "--temperature", defaultValue = "0", paramLabel = "T", description = "Sampling temperature; 0 is greedy. Default: ${DEFAULT-VALUE}.")
    private float temperature;

    @Option(names = "--seed", paramLabel = "S", description = "Seed of sampling at temperature > 0. Default: a new one each run.")
    private Long seed;

    @Option(names = "--json", description = "Print the completion and timings as JSON.")
    private boolean json;

    record Result(String model, String completion, int promptTokens, int generatedTokens, String finishReason, double loadSeconds,
            double tokensPerSecond) {}

    @Override
    public Integer call() throws Exception {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("--max-tokens must be >= 1, found " + maxTokens);
        }
        if (temperature < 0) {
            throw new IllegalArgumentException("--temperature must be >= 0, found " + temperature);
        }
        LoadOptions options = selection.loadOptions();
        Result result;
        try (JlamaModels.Loaded loaded = JlamaModels.load(model, options)) {
            long sampling = seed != null ? seed : ThreadLocalRandom.current().nextLong();
            Completion done = Completion.generate(loaded.model(), PromptContext.of(prompt), maxTokens, temperature, sampling, token -> {});
            result = new Result(model, done.text(), done.promptTokens(), done.generatedTokens(), done.finishReason(),
                    loaded.loadSeconds(), done.tokensPerSecond());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, result);
        } else {
            out.println(result.completion());
            out.printf(Locale.ROOT, "-- %s: loaded in %.2f s; %d prompt tokens, %d generated at %.1f tokens/s (%s)%n", model,
                    result.loadSeconds(), result.promptTokens(), result.generatedTokens(), result.tokensPerSecond(),
                    result.finishReason());
            out.flush();
        }
        return ExitCodes.OK;
    }
}
