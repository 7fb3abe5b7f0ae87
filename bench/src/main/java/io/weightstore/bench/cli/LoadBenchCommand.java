package io.weightstore.bench.cli;

import io.weightstore.bench.LoadBench;
import io.weightstore.bench.Measurement;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** What {@code bench load} and {@code bench compare} share: the harness run, its table and its JSON. */
abstract class LoadBenchCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--size", defaultValue = "4G", paramLabel = "SIZE", description = "Checkpoint size. Default: ${DEFAULT-VALUE}.")
    String size;

    @Option(names = "--runs", defaultValue = "3", description = "Timed runs per path, after three untimed warm-up runs of each. Default: ${DEFAULT-VALUE}.")
    int runs;

    @Option(names = "--source-dir", defaultValue = "/tmp/weightstore-bench", paramLabel = "DIR",
            description = "Where the synthetic checkpoint is written, and reused by later runs. Default: ${DEFAULT-VALUE}.")
    Path sourceDir;

    @Option(names = "--pool-dir", paramLabel = "DIR",
            description = PoolDirectory.OPTION_DESCRIPTION)
    Path poolDir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    boolean json;

    /** What {@code --json} prints and {@code compare.json} holds. */
    record Result(long checkpointBytes, int runs, String crc32c, List<Row> rows, List<Target> targets, List<Long> tp4BytesPerRank,
            List<String> notes) {}

    /** A ratio of medians the loader is held to, measured in this run. */
    record Target(String path, String against, double ratio, double goal) {}

    /** One path with its ratios to the ceilings and to the store's raw read speed. */
    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            double ratioToMemcpy, double ratioToRawSocket, double ratioToRawStore) {}

    abstract boolean peers();

    abstract int peerConnections();

    /** Extra output after the table, such as result files. */
    abstract void written(LoadBench.Report report, Result result) throws Exception;

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be >= 1, found " + runs);
        }
        Files.createDirectories(sourceDir);
        LoadBench.Report report;
        try (PoolDirectory pools = PoolDirectory.of(poolDir, spec.commandLine().getErr())) {
            report = LoadBench.run(sourceDir, pools.dir(), ByteSizes.parse(size), runs, peers(), peerConnections());
        }
        List<Row> rows = new ArrayList<>();
        for (Measurement m : all(report)) {
            rows.add(new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), m.median() / report.memcpy().median(),
                    m.median() / report.rawSocket().median(), m.median() / report.rawStore().median()));
        }
        Result result = new Result(report.checkpointBytes(), runs, Checksums.implementation(), rows, targets(rows),
                report.tpBytesPerRank(), report.notes());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, result);
        } else {
            print(report, rows, out);
        }
        written(report, result);
        return ExitCodes.OK;
    }

    /** The loader's rows against the rows its goals name; a goal whose rows were not measured is left out. */
    private static List<Target> targets(List<Row> rows) {
        List<Target> targets = new ArrayList<>();
        Optional<Row> loopback = row(rows, "loader, loopback");
        Optional<Row> sameHost = row(rows, "loader, same host");
        Optional<Row> bestNginx = rows.stream().filter(r -> r.path().startsWith("nginx"))
                .max(Comparator.comparingDouble(Row::medianGbPerSecond));
        add(targets, loopback, row(rows, "raw socket"), 0.8);
        add(targets, row(rows, "loader, TP=4 all ranks"), loopback, 0.9);
        add(targets, sameHost, row(rows, "local page cache, mmap"), 0.9);
        add(targets, loopback, bestNginx, 1.0);
        add(targets, loopback, rows.stream().filter(r -> r.path().startsWith("Redis")).findFirst(), 2.0);
        return targets;
    }

    private static Optional<Row> row(List<Row> rows, String path) {
        return rows.stream().filter(r -> r.path().equals(path)).findFirst();
    }

    private static void add(List<Target> targets, Optional<Row> path, Optional<Row> against, double goal) {
        if (path.isPresent() && against.isPresent()) {
            targets.add(new Target(path.get().path(), against.get().path(), path.get().medianGbPerSecond()
                    / against.get().medianGbPerSecond(), goal));
        }
    }

    static List<Measurement> all(LoadBench.Report report) {
        List<Measurement> all = new ArrayList<>(List.of(report.memcpy(), report.rawSocket(), report.rawStore()));
        all.addAll(report.paths());
        return all;
    }

    private void print(LoadBench.Report report, List<Row> rows, PrintWriter out) {
        out.printf("checkpoint %s of weights, %d runs per path (GB/s; ratios of medians)%n", ByteSizes.format(report.checkpointBytes()),
                runs);
        out.println("checksums: " + Checksums.implementation());
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x MEMCPY", "x RAW SOCKET", "x RAW STORE")
                .alignRight("MEDIAN", "MIN", "MAX", "x MEMCPY", "x RAW SOCKET", "x RAW STORE");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    f(r.ratioToMemcpy()), f(r.ratioToRawSocket()), f(r.ratioToRawStore()));
        }
        table.print(out);
        for (Target t : targets(rows)) {
            out.printf(Locale.ROOT, "%s = %.2f x %s (goal %.1f)%n", t.path(), t.ratio(), t.against(), t.goal());
        }
        for (int rank = 0; rank < report.tpBytesPerRank().size(); rank++) {
            long bytes = report.tpBytesPerRank().get(rank);
            out.printf(Locale.ROOT, "TP=4 rank %d read %s = %.3f of the checkpoint (amplification %.3f)%n", rank,
                    ByteSizes.format(bytes), (double) bytes / report.checkpointBytes(),
                    4.0 * bytes / report.checkpointBytes());
        }
        report.notes().forEach(note -> out.println("note: " + note));
        out.flush();
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
