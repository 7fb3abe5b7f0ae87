package io.weightstore.cli;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore quickstart}: the main job, end to end, on the local machine with nothing to set up. */
@Command(
        name = "quickstart",
        mixinStandardHelpOptions = true,
        description = {
            "Run the main job end to end on this machine: synthesize a tiny Llama checkpoint and validate it.",
            "Writes under --dir (default $WEIGHTSTORE_HOME/quickstart), replacing what an earlier quickstart left there."
        })
final class QuickstartCommand implements Callable<Integer> {
    static final String CHECKPOINT_DIR = "tiny-llama";

    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Working directory. Default: $WEIGHTSTORE_HOME/quickstart.")
    private Path dir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        Path work = dir != null ? dir : WeightstoreHome.resolve().resolve("quickstart");
        Path checkpoint = work.resolve(CHECKPOINT_DIR);
        deleteRecursively(checkpoint);

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
        out.println("quickstart OK");
        out.flush();
        return WeightstoreCli.EXIT_OK;
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
