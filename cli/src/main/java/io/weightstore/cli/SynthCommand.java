package io.weightstore.cli;

import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.cli.output.Table;
import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.FreeSpace;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore synth}: writes a deterministic synthetic Llama checkpoint in Hugging Face layout. */
@Command(
        name = "synth",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Write a synthetic Llama checkpoint (config, tokenizer, sharded safetensors and index) that Jlama can run.",
            "Without --size it is a tiny model; each dimension flag overrides the preset. Same flags and seed, same bytes."
        })
final class SynthCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR",
            description = "Directory to write; must not hold a checkpoint, and its file system must have room for it.")
    private Path out;

    @Option(names = "--size", converter = ByteSizeConverter.class,
            paramLabel = "SIZE", description = "Pick dimensions for a checkpoint of about SIZE (e.g. 100M, 4G).")
    private Long size;

    @Option(names = "--arch", defaultValue = SynthSpec.LLAMA, description = "Architecture; only 'llama'. Default: ${DEFAULT-VALUE}.")
    private String arch;

    @Option(names = "--hidden", paramLabel = "N", description = "Hidden size (a multiple of --heads).")
    private Integer hidden;

    @Option(names = "--layers", paramLabel = "N", description = "Number of transformer layers.")
    private Integer layers;

    @Option(names = "--heads", paramLabel = "N", description = "Attention heads.")
    private Integer heads;

    @Option(names = "--kv-heads", paramLabel = "N", description = "Key/value heads (divides --heads).")
    private Integer kvHeads;

    @Option(names = "--intermediate", paramLabel = "N", description = "MLP intermediate size.")
    private Integer intermediate;

    @Option(names = "--vocab", paramLabel = "N", description = "Vocabulary size (at least " + SynthSpec.MIN_VOCAB + ").")
    private Integer vocab;

    @Option(names = "--dtype", defaultValue = "f32", paramLabel = "f32|bf16|f16", description = "Weight dtype. Default: ${DEFAULT-VALUE}.")
    private String dtype;

    @Option(names = "--max-shard-size", converter = ByteSizeConverter.class, paramLabel = "SIZE", defaultValue = "1G",
            description = "Largest shard file; a bigger tensor gets a shard of its own. Default: ${DEFAULT-VALUE}.")
    private long maxShardSize;

    @Option(names = "--seed", defaultValue = "0", description = "Seed of the pseudo-random weights. Default: ${DEFAULT-VALUE}.")
    private long seed;

    @Option(names = "--json", description = "Print the result as JSON.")
    private boolean json;

    /** What was written, for --json. */
    record SynthResult(String out, String arch, int hidden, int layers, int heads, int kvHeads, int intermediate, int vocab,
            String dtype, long seed, long totalBytes, List<FileEntry> files) {}

    record FileEntry(String path, String kind, long size) {}

    @Override
    public Integer call() throws IOException {
        SynthSpec spec = spec();
        SyntheticCheckpoint.Plan plan = SyntheticCheckpoint.Plan.of(spec);
        // Refused before anything is written: a checkpoint its disk cannot hold would fill the disk first.
        FreeSpace.require(out, plan.bytes(), "the checkpoint");
        CheckpointDirectory written;
        try (ProgressBar progress = new ProgressBar("synth", spec.weightBytes())) {
            written = SyntheticCheckpoint.write(plan, out, progress::advanced);
        }
        print(spec, written, this.spec.commandLine().getOut(), json);
        return ExitCodes.OK;
    }

    SynthSpec spec() {
        DType type = switch (dtype.toLowerCase(Locale.ROOT)) {
            case "f32" -> DType.F32;
            case "bf16" -> DType.BF16;
            case "f16" -> DType.F16;
            default -> throw new IllegalArgumentException("--dtype must be f32, bf16 or f16, found '" + dtype + "'");
        };
        long shardLimit = maxShardSize;
        SynthSpec base = size == null ? SynthSpec.tiny(type, seed)
                : SynthSpec.forSize(size, type, shardLimit, seed);
        return new SynthSpec(arch,
                or(hidden, base.hidden()), or(layers, base.layers()), or(heads, base.heads()), or(kvHeads, base.kvHeads()),
                or(intermediate, base.intermediate()), or(vocab, base.vocab()), type, shardLimit, seed);
    }

    static void print(SynthSpec spec, CheckpointDirectory written, PrintWriter out, boolean json) {
        if (json) {
            JsonOutput.print(out, new SynthResult(written.root().toString(), spec.arch(), spec.hidden(), spec.layers(),
                    spec.heads(), spec.kvHeads(), spec.intermediate(), spec.vocab(), spec.dtype().name(), spec.seed(),
                    written.totalBytes(), written.files().stream()
                            .map(f -> new FileEntry(f.path(), f.kind().name(), f.size())).toList()));
            return;
        }
        out.printf("wrote %s: llama hidden=%d layers=%d heads=%d kv-heads=%d intermediate=%d vocab=%d dtype=%s seed=%d%n",
                written.root(), spec.hidden(), spec.layers(), spec.heads(), spec.kvHeads(), spec.intermediate(),
                spec.vocab(), spec.dtype(), spec.seed());
        Table table = new Table("FILE", "KIND", "SIZE", "TENSORS").alignRight("SIZE", "TENSORS");
        for (CheckpointFile f : written.files()) {
            table.row(f.path(), f.kind().name().toLowerCase(Locale.ROOT), ByteSizes.format(f.size()),
                    f.header().map(h -> String.valueOf(h.tensors().size())).orElse("-"));
        }
        table.print(out);
        out.printf("total %s in %d files%n", ByteSizes.format(written.totalBytes()), written.files().size());
        out.flush();
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
