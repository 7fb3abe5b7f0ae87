package io.weightstore.bench.cli;

import io.weightstore.bench.Measurement;
import io.weightstore.bench.StoreReadBench;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench store}: store read throughput against the ceilings. */
@Command(name = "store", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure store read throughput beside memcpy and a raw sendfile socket measured in the same run.",
            "Reads one object from a 3-node loopback cluster (1-8 connections) and over the same-host path.",
            "Needs about 3 x SIZE of space in --dir."
        })
final class BenchStoreCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "2G", paramLabel = "SIZE", description = "Object size. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--runs", defaultValue = "3", description = "Timed runs per path, after three untimed warm-up runs of each. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--dir", defaultValue = "/dev/shm", paramLabel = "DIR",
            description = "Where pools and the source file go; /dev/shm keeps them in memory. Default: ${DEFAULT-VALUE}.")
    private Path dir;

    @Option(names = "--connections", defaultValue = "1,2,4,8", split = ",", paramLabel = "N[,N...]",
            description = "Connection counts to measure over loopback. Default: ${DEFAULT-VALUE}.")
    private int[] connections;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    /** What {@code --json} prints. */
    record Result(long objectBytes, int runs, String crc32c, List<Row> rows) {}

    /** One row of the result, with its ratios to the ceilings. */
    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            double ratioToRawSocket, double ratioToMemcpy) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be >= 1, found " + runs);
        }
        StoreReadBench.Report report = StoreReadBench.run(dir, ByteSizes.parse(size), runs, connections);
        double raw = report.bestRawSocket().median();
        double memcpy = report.memcpy().median();
        List<Row> rows = new ArrayList<>();
        List<Measurement> all = new ArrayList<>();
        all.add(report.memcpy());
        all.addAll(report.rawSocket());
        all.addAll(report.store());
        for (Measurement m : all) {
            rows.add(new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), m.median() / raw, m.median() / memcpy));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new Result(report.objectBytes(), report.runs(), Checksums.implementation(), rows));
            return ExitCodes.OK;
        }
        out.printf("object %s, %d runs per path (median, min, max in GB/s; ratios of medians to the best ceiling)%n",
                ByteSizes.format(report.objectBytes()), runs);
        out.println("checksums: " + Checksums.implementation());
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x RAW SOCKET", "x MEMCPY")
                .alignRight("MEDIAN", "MIN", "MAX", "x RAW SOCKET", "x MEMCPY");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    f(r.ratioToRawSocket()), f(r.ratioToMemcpy()));
        }
        table.print(out);
        return ExitCodes.OK;
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
