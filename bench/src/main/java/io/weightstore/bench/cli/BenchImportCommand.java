package io.weightstore.bench.cli;

import io.weightstore.bench.ImportBench;
import io.weightstore.bench.Measurement;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
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

/** {@code weightstore bench import}: {@code model import} against reading and hashing the source on every core. */
@Command(name = "import", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Time model import of a synthetic checkpoint into a fresh embedded store, in turns with its two ceilings",
            "measured in the same run: reading the source files from the page cache, and SHA-256 over them, on every core.",
            "The checkpoint is written once under --dir and reused; each import's store is made and removed there."
        })
final class BenchImportCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "1G", paramLabel = "SIZE", description = "Checkpoint size. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--max-shard-size", defaultValue = "256M", paramLabel = "SIZE",
            description = "Largest safetensors shard; at least one shard per core lets the import hash on every core. "
                    + "Default: ${DEFAULT-VALUE}.")
    private String shardSize;

    @Option(names = "--runs", defaultValue = "3", description = "Timed runs per path, after one warm-up. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--parallel-files", defaultValue = "2", paramLabel = "N",
            description = "The import's --parallel-files. Default: ${DEFAULT-VALUE}, as model import's.")
    private int parallelFiles;

    @Option(names = "--dir", defaultValue = "/tmp/weightstore-bench-import", paramLabel = "DIR",
            description = "Where the checkpoint and the stores go (a disk, as $WEIGHTSTORE_HOME usually is). Default: ${DEFAULT-VALUE}.")
    private Path dir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    /**
     * What {@code --json} prints.
     *
     * @param bestImportGbPerSecond what the import's steps, at the speeds measured on one core, allow on every core
     * @param importCores the cores the import kept busy, median over the runs
     * @param importCoreSecondsPerGb the CPU the import spent per GB, median over the runs
     */
    record Result(long checkpointBytes, int files, int threads, int parallelFiles, int runs, double ceilingGbPerSecond,
            double bestImportGbPerSecond, double importCores, double importCoreSecondsPerGb, List<Row> rows) {}

    /** One row of the result, with its ratio to the lower ceiling. */
    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            double ratioToCeiling) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be >= 1, found " + runs);
        }
        if (parallelFiles < 1) {
            throw new IllegalArgumentException("--parallel-files must be >= 1, found " + parallelFiles);
        }
        ImportBench.Report report = ImportBench.run(dir, ByteSizes.parse(size), ByteSizes.parse(shardSize), runs, parallelFiles);
        double ceiling = report.ceiling();
        List<Measurement> measured = new ArrayList<>(List.of(report.sourceRead(), report.sha256Mapped(), report.sha256Read(),
                report.importRun()));
        measured.addAll(report.stages().all());
        List<Row> rows = measured.stream().map(m -> row(m, ceiling)).toList();
        double best = report.stages().bestImportGbPerSecond();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new Result(report.checkpointBytes(), report.files(), report.threads(), report.parallelFiles(),
                    runs, ceiling, best, report.importCpu().cores(), report.importCpu().coreSecondsPerGb(), rows));
            return ExitCodes.OK;
        }
        out.printf("checkpoint %s in %d files, %d cores, %d runs per path in turns (median, min, max in GB/s; x CEILING is "
                + "the median over the lower ceiling's, %.2f GB/s)%n", ByteSizes.format(report.checkpointBytes()), report.files(),
                report.threads(), runs, ceiling);
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x CEILING").alignRight("MEDIAN", "MIN", "MAX", "x CEILING");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    f(r.ratioToCeiling()));
        }
        table.print(out);
        StringBuilder steps = new StringBuilder();
        double coreSeconds = 0;
        for (Measurement step : report.stages().importSteps()) {
            steps.append(steps.isEmpty() ? "" : " + ").append(String.format(Locale.ROOT, "%.3f (%s)", 1 / step.median(),
                    step.path().replace(", 1 core", "")));
            coreSeconds += 1 / step.median();
        }
        out.printf(Locale.ROOT, "an import's steps take one core %s = %.3f s per GB: on %d cores at best %.2f GB/s, %.2f x CEILING%n",
                steps, coreSeconds, report.threads(), best, best / ceiling);
        out.printf(Locale.ROOT, "the import itself kept %.2f of %d cores busy and spent %.3f core-s per GB (medians; all of "
                + "this process's threads while it ran)%n", report.importCpu().cores(), report.threads(),
                report.importCpu().coreSecondsPerGb());
        return ExitCodes.OK;
    }

    private static Row row(Measurement m, double ceiling) {
        return new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), m.median() / ceiling);
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
