package io.weightstore.cli;

import io.weightstore.bench.LoadBench;
import io.weightstore.bench.Measurement;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench load}: whole-checkpoint loads by every path, beside the store's raw speed and the ceilings. */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Load a synthetic checkpoint into off-heap memory through the loader (3-node loopback cluster, and the",
            "same-host path), from the same files on local disk (FileChannel, mmap), and at TP=4 with every rank; beside the",
            "store's raw read speed, memcpy and a raw sendfile socket, all measured in this run."
        })
final class BenchLoadCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "4G", paramLabel = "SIZE", description = "Checkpoint size. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--runs", defaultValue = "3", description = "Timed runs per path, after one warm-up. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--source-dir", defaultValue = "/tmp/weightstore-bench", paramLabel = "DIR",
            description = "Where the synthetic checkpoint is written (and reused by later runs). Default: ${DEFAULT-VALUE}.")
    private Path sourceDir;

    @Option(names = "--pool-dir", defaultValue = "/dev/shm", paramLabel = "DIR",
            description = "Where the nodes' pools go; /dev/shm keeps them in memory. Default: ${DEFAULT-VALUE}.")
    private Path poolDir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            double ratioToRawStore, double ratioToRawSocket, double ratioToMemcpy) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be >= 1, found " + runs);
        }
        java.nio.file.Files.createDirectories(sourceDir);
        LoadBench.Report report = LoadBench.run(sourceDir, poolDir, ByteSizes.parse(size), runs);
        List<Measurement> all = new ArrayList<>(List.of(report.memcpy(), report.rawSocket(), report.rawStore()));
        all.addAll(report.paths());
        List<Row> rows = new ArrayList<>();
        for (Measurement m : all) {
            rows.add(new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), m.median() / report.rawStore().median(),
                    m.median() / report.rawSocket().median(), m.median() / report.memcpy().median()));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, Map.of("checkpointBytes", report.checkpointBytes(), "runs", runs, "rows", rows,
                    "tp4BytesPerRank", report.tpBytesPerRank()));
            return WeightstoreCli.EXIT_OK;
        }
        out.printf("checkpoint %s of weights, %d runs per path (GB/s; ratios of medians)%n", ByteSizes.format(report.checkpointBytes()),
                runs);
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x RAW STORE", "x RAW SOCKET", "x MEMCPY")
                .alignRight("MEDIAN", "MIN", "MAX", "x RAW STORE", "x RAW SOCKET", "x MEMCPY");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    f(r.ratioToRawStore()), f(r.ratioToRawSocket()), f(r.ratioToMemcpy()));
        }
        table.print(out);
        for (int rank = 0; rank < report.tpBytesPerRank().size(); rank++) {
            long bytes = report.tpBytesPerRank().get(rank);
            out.printf(Locale.ROOT, "TP=4 rank %d read %s = %.3f of the checkpoint%n", rank, ByteSizes.format(bytes),
                    (double) bytes / report.checkpointBytes());
        }
        return WeightstoreCli.EXIT_OK;
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
