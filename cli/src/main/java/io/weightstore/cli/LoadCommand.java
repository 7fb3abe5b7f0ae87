package io.weightstore.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.ProgressBar;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointReplicator;
import io.weightstore.weights.Sha256;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.FilesVerified;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.LoadReport;
import io.weightstore.weights.loader.ShardPlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore load}: streams every tensor of a checkpoint (or of ranks' shares) into off-heap memory. */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Stream a checkpoint's tensors from the store into off-heap memory, as an engine would.",
            "Reports tensors, bytes read against the rank's share and the whole checkpoint (read amplification),",
            "seconds and GB/s.",
            "Every file is refused unless its size, writer and block checksums are the ones the manifest recorded,",
            "and each tensor, or the rank's shard of it, is checked against the CRC32C the import recorded",
            "(CLIENT-CHECKED; NODE-CHECKED are splits the import recorded none for: uneven, or other than 2, 4, 8 ranks).",
            "A mismatch fails the load (exit 1) naming the file or tensor, with what was expected and found."
        })
final class LoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "weightstore://ID", converter = StoreUriConverter.class, description = "The checkpoint to load.")
    private URI uri;

    @Option(names = "--tp-size", defaultValue = "1", paramLabel = "N", description = "Tensor-parallel world size. Default: ${DEFAULT-VALUE}.")
    private int tpSize;

    @ArgGroup(exclusive = true)
    private Ranks ranks;

    static final class Ranks {
        @Option(names = "--tp-rank", paramLabel = "R", description = "Load only rank R (0-based). Default: 0.")
        Integer rank;

        @Option(names = "--all-ranks", description = "Load every rank, one after another, and report each.")
        boolean all;
    }

    @Option(names = "--plan", defaultValue = "llama", paramLabel = "FILE|PRESET",
            description = "Shard plan: a preset (llama, qwen2, mistral) or a JSON file of rules. Default: ${DEFAULT-VALUE}.")
    private String plan;

    @Option(names = "--no-column-layouts", description = "Read column shards strided from the files even where the import laid"
            + " them out for --tp-size (model import --tp-layout); to compare the two, or to leave a layout alone.")
    private boolean noColumnLayouts;

    @Option(names = "--buffer", converter = ByteSizeConverter.class, defaultValue = "512M", paramLabel = "SIZE",
            description = "Off-heap buffer, two halves read and consumed in turn. Default: ${DEFAULT-VALUE}.")
    private long buffer;

    @Option(names = "--digest", description = "Also print each tensor's name, dtype, received shape and SHA-256.")
    private boolean digest;

    @Option(names = "--cache-local",
            description = "Have the storage node on this host (one whose pool file this process can map) keep a copy of every"
                    + " file of the checkpoint, on top of its replica count: copied node to node in the background, so the next"
                    + " load here maps its own memory, and other hosts may read from that copy too. Without such a node, says so"
                    + " on stderr and loads as usual.")
    private boolean cacheLocal;

    @Option(names = "--verify", description = {"Before loading, read every file end to end and check its SHA-256 against the",
        "manifest: the check that CRC32Cs forged by a node holding a replica cannot pass. Costs a full read",
        "of the checkpoint (and of the column layouts a --tp-size load reads); the time is reported."})
    private boolean verify;

    @Option(names = "--importer", paramLabel = "IDENTITY", description = {"Refuse the checkpoint unless the master recorded IDENTITY",
        "as its importer, as 'model list' shows it (\"writer importer\": role and name)."})
    private String importer;

    @Option(names = "--json", description = "Print the report as JSON.")
    private boolean json;

    record TensorDigest(String name, String dtype, List<Long> shape, String sha256) {}

    /** One rank's report, with each tensor's digest when asked for. */
    record RankResult(@JsonUnwrapped LoadReport report, List<TensorDigest> digests) {}

    @Override
    public Integer call() throws Exception {
        if (tpSize < 1) {
            throw new IllegalArgumentException("--tp-size must be >= 1, found " + tpSize);
        }
        List<Integer> toLoad = new ArrayList<>();
        if (ranks != null && ranks.all) {
            for (int r = 0; r < tpSize; r++) {
                toLoad.add(r);
            }
        } else {
            int rank = ranks == null || ranks.rank == null ? 0 : ranks.rank;
            if (rank < 0 || rank >= tpSize) {
                throw new IllegalArgumentException("--tp-rank must be in 0.." + (tpSize - 1) + ", found " + rank);
            }
            toLoad.add(rank);
        }
        // Resolved at any size, so a plan that names no preset or file is an error even where one rank needs no plan.
        ShardPlan named = ShardPlan.resolve(plan);
        ShardPlan shardPlan = tpSize == 1 ? ShardPlan.replicateAll() : named;
        LoadOptions options = selection.loadOptions().withBuffer(buffer).withImporter(importer)
                .withColumnLayouts(!noColumnLayouts);
        List<RankResult> results = new ArrayList<>();
        try (CheckpointSource checkpoint = CheckpointSource.open(uri, options)) {
            if (cacheLocal) {
                keepLocalCopies(checkpoint);
            }
            FilesVerified verified = null;
            if (verify) {
                try (ProgressBar bar = new ProgressBar("verify sha256")) {
                    verified = checkpoint.verifyFiles(tpSize, bar);
                }
            }
            for (int rank : toLoad) {
                List<TensorDigest> digests = new ArrayList<>();
                LoadReport report;
                try (ProgressBar bar = new ProgressBar("load rank " + rank)) {
                    report = checkpoint.load(rank, tpSize, shardPlan, tensor -> {
                        if (digest) {
                            digests.add(new TensorDigest(tensor.name(), tensor.dtype().name(), tensor.shape(), Sha256.of(tensor.data())));
                        }
                    }, bar);
                }
                // The checkpoint is verified once, before the first rank: that rank's report carries it.
                results.add(new RankResult(results.isEmpty() && verified != null ? report.withVerified(verified) : report, digests));
            }
        }
        print(results);
        return ExitCodes.OK;
    }

    private void keepLocalCopies(CheckpointSource checkpoint) throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        Optional<CheckpointReplicator.LocalCopies> local = new CheckpointReplicator(new Catalog(checkpoint.store()))
                .keepLocal(checkpoint.checkpointId(), noColumnLayouts ? 1 : tpSize);
        if (local.isEmpty()) {
            err.println("weightstore: --cache-local: no storage node on this host (none whose pool file this process can map);"
                    + " loading from the cluster as usual");
        } else {
            err.printf("node %s on this host keeps a copy of the %d files of %s (%d newly asked); the master copies them in the"
                    + " background%n", local.get().nodeId(), local.get().files(), checkpoint.checkpointId(), local.get().filesChanged());
        }
        err.flush();
    }

    private void print(List<RankResult> results) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, results);
            return;
        }
        Reports.loads(results.stream().map(RankResult::report).toList(), out);
        for (RankResult r : results) {
            for (TensorDigest d : r.digests()) {
                out.printf("%s%s %s %s %s%n", results.size() > 1 ? "rank " + r.report().rank() + " " : "", d.name(), d.dtype(), d.shape(),
                        d.sha256());
            }
        }
        out.flush();
    }
}
