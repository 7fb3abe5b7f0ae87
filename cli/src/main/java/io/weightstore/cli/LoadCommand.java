package io.weightstore.cli;

import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Sha256;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.ShardPlan;
import io.weightstore.weights.loader.Tensor;
import io.weightstore.weights.loader.TensorStream;
import java.io.PrintWriter;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
            "seconds and GB/s."
        })
final class LoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Mixin
    private StoreSelection selection;

    @Parameters(paramLabel = "weightstore://ID", description = "The checkpoint to load.")
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

    @Option(names = "--buffer", defaultValue = "512M", paramLabel = "SIZE",
            description = "Off-heap buffer, two halves read and consumed in turn. Default: ${DEFAULT-VALUE}.")
    private String buffer;

    @Option(names = "--digest", description = "Also print each tensor's name, dtype, received shape and SHA-256.")
    private boolean digest;

    @Option(names = "--json", description = "Print the report as JSON.")
    private boolean json;

    record TensorDigest(String name, String dtype, List<Long> shape, String sha256) {}

    record RankReport(int rank, int worldSize, int tensors, long bytesRead, long shareBytes, long checkpointTensorBytes,
            double amplification, double fractionOfCheckpoint, double seconds, double gbPerSecond, List<TensorDigest> digests) {}

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
        ShardPlan shardPlan = tpSize == 1 ? ShardPlan.replicateAll() : ShardPlan.resolve(plan);
        LoadOptions options = new LoadOptions(selection.store, selection.connections, ByteSizes.parse(buffer), null, null);
        List<RankReport> reports = new ArrayList<>();
        try (CheckpointSource checkpoint = CheckpointSource.open(uri, options)) {
            long checkpointBytes = checkpoint.tensors().values().stream().mapToLong(l -> l.info().byteSize()).sum();
            for (int rank : toLoad) {
                reports.add(loadRank(checkpoint, rank, shardPlan, checkpointBytes));
            }
        }
        print(reports);
        return WeightstoreCli.EXIT_OK;
    }

    private RankReport loadRank(CheckpointSource checkpoint, int rank, ShardPlan shardPlan, long checkpointBytes) throws Exception {
        long before = checkpoint.bytesRead();
        long start = System.nanoTime();
        List<TensorDigest> digests = new ArrayList<>();
        int count = 0;
        long share;
        try (TensorStream stream = checkpoint.stream(rank, tpSize, shardPlan);
                ProgressBar bar = new ProgressBar("load rank " + rank, stream.plannedBytes())) {
            share = stream.plannedBytes();
            long done = 0;
            Tensor t;
            while ((t = stream.next()) != null) {
                count++;
                done += t.data().byteSize();
                bar.update(done);
                if (digest) {
                    digests.add(new TensorDigest(t.name(), t.dtype().name(), t.shape(), Sha256.of(t.data())));
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long read = checkpoint.bytesRead() - before;
        return new RankReport(rank, tpSize, count, read, share, checkpointBytes, share == 0 ? 0 : (double) read / share,
                checkpointBytes == 0 ? 0 : (double) read / checkpointBytes, seconds, read / seconds / 1e9, digests);
    }

    private void print(List<RankReport> reports) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, reports);
            return;
        }
        Table table = new Table("RANK", "TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S")
                .alignRight("TENSORS", "READ", "SHARE", "CHECKPOINT", "AMPLIFICATION", "OF CHECKPOINT", "SECONDS", "GB/S");
        for (RankReport r : reports) {
            table.row(r.rank() + "/" + r.worldSize(), r.tensors(), ByteSizes.format(r.bytesRead()), ByteSizes.format(r.shareBytes()),
                    ByteSizes.format(r.checkpointTensorBytes()), String.format(Locale.ROOT, "%.3f", r.amplification()),
                    String.format(Locale.ROOT, "%.1f%%", 100 * r.fractionOfCheckpoint()),
                    String.format(Locale.ROOT, "%.2f", r.seconds()), String.format(Locale.ROOT, "%.2f", r.gbPerSecond()));
        }
        table.print(out);
        for (RankReport r : reports) {
            for (TensorDigest d : r.digests()) {
                out.printf("%s%s %s %s %s%n", reports.size() > 1 ? "rank " + r.rank() + " " : "", d.name(), d.dtype(), d.shape(),
                        d.sha256());
            }
        }
        out.flush();
    }
}
