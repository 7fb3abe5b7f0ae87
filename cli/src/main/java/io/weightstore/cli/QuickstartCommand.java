package io.weightstore.cli;

import com.github.tjake.jlama.safetensors.prompt.PromptContext;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.jlama.Completion;
import io.weightstore.jlama.JlamaModels;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.CheckpointVerifier;
import io.weightstore.weights.ImportRequest;
import io.weightstore.weights.ImportResult;
import io.weightstore.weights.WeightstoreHome;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.LoadReport;
import io.weightstore.weights.loader.ShardPlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore quickstart}: the main job, end to end, on the local machine with nothing to set up. */
@Command(
        name = "quickstart",
        mixinStandardHelpOptions = true,
        description = {
            "Run the main job end to end on this machine, on the embedded store.",
            "Synthesize a tiny Llama checkpoint, validate it, import, list, verify, load it with TP=2, and generate from the",
            "store and from the directory. Writes under --dir (default $WEIGHTSTORE_HOME/quickstart) and into the store",
            "selected as for every store verb, replacing what an earlier quickstart left there."
        })
final class QuickstartCommand implements Callable<Integer> {
    static final String CHECKPOINT_DIR = "tiny-llama";

    @Spec
    private CommandSpec spec;

    static final String CHECKPOINT_ID = "quickstart-tiny-llama";
    private static final String PROMPT = "the weights came from the store";

    @Option(names = "--dir", paramLabel = "DIR", description = "Working directory. Default: $WEIGHTSTORE_HOME/quickstart.")
    private Path dir;

    @Option(names = "--no-generate", description = {
        "Stop after step 6, before Jlama generates: the steps that need no model engine, in a JVM started without",
        "Jlama's Vector API module (--add-modules jdk.incubator.vector, which the launcher adds for generate, serve and",
        "quickstart). The launcher trains its start-up cache for every other verb this way."})
    private boolean noGenerate;

    @Mixin
    private StoreSelection selection;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        Path work = dir != null ? dir : WeightstoreHome.created().resolve("quickstart");
        Path checkpoint = work.resolve(CHECKPOINT_DIR);
        Directories.deleteRecursively(checkpoint);

        out.println("== 1. synthesize a tiny Llama checkpoint (weightstore synth --out " + checkpoint + ")");
        SynthSpec synth = SynthSpec.tiny(DType.F32, 42);
        SyntheticCheckpoint.write(synth, checkpoint, bytes -> {});
        out.flush();

        out.println("== 2. validate the directory: every header, the index, every indexed tensor");
        CheckpointDirectory directory = CheckpointDirectory.read(checkpoint);
        SynthCommand.print(synth, directory, out, false);
        long tensors = directory.files().stream().mapToLong(f -> f.header().map(h -> h.tensors().size()).orElse(0)).sum();
        out.printf("valid: %d safetensors files, %d tensors, index names %d tensors%n",
                directory.files().stream().filter(f -> f.header().isPresent()).count(), tensors,
                directory.index().map(i -> i.weightMap().size()).orElse(0));
        out.flush();

        try (StoreClient store = selection.open()) {
            Catalog catalog = new Catalog(store);
            CheckpointId id = new CheckpointId(CHECKPOINT_ID);
            out.println("== 3. import it into the " + selection.describe() + " (weightstore model import --checkpoint-id "
                    + CHECKPOINT_ID + " ...)");
            ImportResult imported = new CheckpointImporter(catalog).run(new ImportRequest(id, "weightstore/tiny-llama", "main",
                    checkpoint, 1, true, 2), Progress.NONE);
            out.printf("imported %d files, %s: %s%n", imported.manifest().files().size(),
                    ByteSizes.format(imported.manifest().totalBytes()), imported.manifest().status());

            out.println("== 4. list the checkpoints (weightstore model list)");
            Reports.checkpoints(catalog.list(), out);

            out.println("== 5. verify every byte against the manifest's SHA-256 (weightstore model verify " + CHECKPOINT_ID + ")");
            CheckpointVerifier.Report verified = new CheckpointVerifier(catalog).run(id, CheckpointVerifier.Mode.FULL, Progress.NONE);
            Reports.verdicts(verified, out);
            if (!verified.ok()) {
                out.println("quickstart FAILED: verify found bad files");
                return ExitCodes.FAILURE;
            }

            out.println("== 6. load it with tensor parallelism 2, each rank reading only its share"
                    + " (weightstore load weightstore://" + CHECKPOINT_ID + " --tp-size 2 --all-ranks)");
            try (CheckpointSource source = CheckpointSource.open(store, id, LoadOptions.defaults())) {
                List<LoadReport> ranks = new ArrayList<>();
                for (int rank = 0; rank < 2; rank++) {
                    ranks.add(source.load(rank, 2, ShardPlan.preset("llama"), tensor -> {}, Progress.NONE));
                }
                Reports.loads(ranks, out);
            }
        }

        if (noGenerate) {
            out.println("quickstart OK (without step 7, generate: --no-generate)");
            out.flush();
            return ExitCodes.OK;
        }
        out.println("== 7. generate with Jlama from the store and from the directory (weightstore generate --model ...)");
        out.flush();
        String fromStore = generate("weightstore://" + CHECKPOINT_ID, out);
        String fromDisk = generate(checkpoint.toString(), out);
        if (!fromStore.equals(fromDisk)) {
            out.println("quickstart FAILED: the store-loaded model generated different text");
            return ExitCodes.FAILURE;
        }
        out.println("identical: the model loaded from the store generates exactly what the files on disk generate");
        out.println("quickstart OK");
        out.flush();
        return ExitCodes.OK;
    }

    private String generate(String model, PrintWriter out) throws IOException {
        try (JlamaModels.Loaded loaded = JlamaModels.load(model, selection.loadOptions())) {
            Completion done = Completion.generate(loaded.model(), PromptContext.of(PROMPT), 16, 0.0f, token -> {});
            out.printf(Locale.ROOT, "%-40s loaded in %.2f s -> %s%n", model, loaded.loadSeconds(), quote(done.text()));
            out.flush();
            return done.text();
        }
    }

    private static String quote(String text) {
        return "\"" + text.replace("\n", "\\n") + "\"";
    }
}
