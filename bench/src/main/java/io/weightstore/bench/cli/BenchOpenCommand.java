package io.weightstore.bench.cli;

import io.weightstore.bench.Measurement;
import io.weightstore.bench.OpenBench;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench open}: a load's fixed costs (open, close) beside its stream, on a checkpoint of many files. */
@Command(name = "open", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Time the phases of whole loads of a synthetic checkpoint in many small files over a 3-node loopback cluster:",
            "opening it (manifest, every file's read lease, header and tensor CRC table), streaming every tensor, and",
            "closing it (ending the leases). What a load costs per file shows beside a stream that takes little time."
        })
final class BenchOpenCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "1G", paramLabel = "SIZE", description = "Checkpoint size. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--max-shard-size", defaultValue = "16M", paramLabel = "SIZE",
            description = "Largest safetensors shard: the smaller, the more files. Default: ${DEFAULT-VALUE}.")
    private String shardSize;

    @Option(names = "--runs", defaultValue = "15", description = "Timed loads, after three untimed warm-up loads. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--source-dir", defaultValue = "/tmp/weightstore-bench", paramLabel = "DIR",
            description = "Where the synthetic checkpoint is written, and reused by later runs. Default: ${DEFAULT-VALUE}.")
    private Path sourceDir;

    @Option(names = "--pool-dir", paramLabel = "DIR", description = PoolDirectory.OPTION_DESCRIPTION)
    private Path poolDir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    /** What {@code --json} prints: medians over the timed loads, in milliseconds, and the whole load's throughput. */
    record Result(int weightFiles, long weightBytes, int runs, double openMillis, double streamMillis, double closeMillis,
            double totalMillis, double loadGbPerSecond, List<OpenBench.Phases> loads) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be >= 1, found " + runs);
        }
        Files.createDirectories(sourceDir);
        OpenBench.Report report;
        try (PoolDirectory pools = PoolDirectory.of(poolDir, spec.commandLine().getErr())) {
            report = OpenBench.run(sourceDir, pools.dir(), ByteSizes.parse(size), ByteSizes.parse(shardSize), runs);
        }
        double total = median(report.loads(), OpenBench.Phases::totalMillis);
        Result result = new Result(report.weightFiles(), report.weightBytes(), runs, median(report.loads(), OpenBench.Phases::openMillis),
                median(report.loads(), OpenBench.Phases::streamMillis), median(report.loads(), OpenBench.Phases::closeMillis), total,
                report.weightBytes() / (total / 1e3) / 1e9, report.loads());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, result);
            return ExitCodes.OK;
        }
        out.printf(Locale.ROOT, "checkpoint %s of weights in %d files, %d loads after %d warm-up loads (ms)%n",
                ByteSizes.format(report.weightBytes()), report.weightFiles(), runs, report.warmUpLoads());
        Table table = new Table("PHASE", "MEDIAN", "MIN", "MAX").alignRight("MEDIAN", "MIN", "MAX");
        row(table, "open", report.loads(), OpenBench.Phases::openMillis);
        row(table, "stream", report.loads(), OpenBench.Phases::streamMillis);
        row(table, "close", report.loads(), OpenBench.Phases::closeMillis);
        row(table, "whole load", report.loads(), OpenBench.Phases::totalMillis);
        table.print(out);
        out.printf(Locale.ROOT, "whole load %.2f GB/s (median); open and close %.0f %% of it%n", result.loadGbPerSecond(),
                100 * (result.openMillis() + result.closeMillis()) / total);
        return ExitCodes.OK;
    }

    private static void row(Table table, String phase, List<OpenBench.Phases> loads, ToDoubleFunction<OpenBench.Phases> millis) {
        double[] values = loads.stream().mapToDouble(millis).toArray();
        table.row(phase, f(Measurement.median(values)), f(Arrays.stream(values).min().orElse(0)),
                f(Arrays.stream(values).max().orElse(0)));
    }

    private static double median(List<OpenBench.Phases> loads, ToDoubleFunction<OpenBench.Phases> millis) {
        return Measurement.median(loads.stream().mapToDouble(millis).toArray());
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
