package io.weightstore.bench.cli;

import io.weightstore.bench.GatewayBench;
import io.weightstore.bench.Measurement;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.gateway.GatewayConfig;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench gateway}: the S3 gateway beside nginx, fetched by the same client. */
@Command(name = "gateway", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure the S3 gateway beside nginx serving the same files, each fetched by the same client, with two clients: "
                    + "parallel HTTP Range requests over kept-alive sockets into off-heap memory, as S3 weight streamers fetch "
                    + "(in this process), and curl processes writing to /dev/null (when curl is installed).",
            "",
            "The checkpoint is imported into a 3-node loopback cluster with pools in --pool-dir; one gateway reads it over the "
                    + "same-host path (pool files sent with sendfile, as on a node's host), one over the nodes' sockets; nginx "
                    + "serves the source directory with sendfile (install it with bench/install-peers.sh). Paths are timed in "
                    + "turns, after three warm-up runs of each.",
            ""
        })
final class BenchGatewayCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "2G", paramLabel = "SIZE", description = "Checkpoint size. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--runs", defaultValue = "3", paramLabel = "N",
            description = "Timed runs per path, after three untimed warm-up runs of each. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--connections", defaultValue = "8", paramLabel = "N",
            description = "Parallel requests, as the Run:ai streamer's default for object storage. Default: ${DEFAULT-VALUE}.")
    private int connections;

    @Option(names = "--range-size", defaultValue = "8M", paramLabel = "SIZE",
            description = "Bytes per Range request, as the Run:ai streamer's default chunk for object storage. Default: ${DEFAULT-VALUE}.")
    private String rangeSize;

    @Option(names = "--chunk-size", defaultValue = "" + (GatewayConfig.DEFAULT_CHUNK_BYTES >> 20) + "M", paramLabel = "SIZE",
            description = "The gateway's --chunk-size: bytes it reads from the store and writes at a time. Default: ${DEFAULT-VALUE}.")
    private String chunkSize;

    @Option(names = "--source-dir", defaultValue = "/tmp/weightstore-bench", paramLabel = "DIR",
            description = "Where the synthetic checkpoint is written, and reused by later runs. Default: ${DEFAULT-VALUE}.")
    private Path sourceDir;

    @Option(names = "--pool-dir", paramLabel = "DIR",
            description = PoolDirectory.OPTION_DESCRIPTION)
    private Path poolDir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    /** What {@code --json} prints. */
    record Result(long checkpointBytes, int runs, int connections, long rangeBytes, List<Row> rows, List<String> notes) {}

    /** One path, with its median's ratio to nginx's with the same client (null when nginx was not measured) and the CPU it cost per GB. */
    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            Double ratioToNginx, double cpuSecondsPerGb) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || connections < 1) {
            throw new IllegalArgumentException("--runs and --connections must be >= 1, found " + runs + " and " + connections);
        }
        Files.createDirectories(sourceDir);
        GatewayBench.Report report;
        try (PoolDirectory pools = PoolDirectory.of(poolDir, spec.commandLine().getErr())) {
            report = GatewayBench.run(sourceDir, pools.dir(), ByteSizes.parse(size), runs, connections, ByteSizes.parse(rangeSize),
                    Math.toIntExact(ByteSizes.parse(chunkSize)));
        }
        Map<String, Double> medians = report.paths().stream().map(GatewayBench.Measured::throughput)
                .collect(Collectors.toMap(Measurement::path, Measurement::median));
        List<Row> rows = report.paths().stream().map(p -> {
            Measurement m = p.throughput();
            Double nginx = medians.get(p.nginxPath());
            return new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), nginx == null ? null : m.median() / nginx,
                    p.cpuSecondsPerGb());
        }).toList();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new Result(report.checkpointBytes(), runs, connections, report.rangeBytes(), rows, report.notes()));
            return ExitCodes.OK;
        }
        out.printf("checkpoint %s of weights, %d runs per path (GB/s; ratios of medians)%n", ByteSizes.format(report.checkpointBytes()),
                runs);
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x NGINX", "CPU s/GB")
                .alignRight("MEDIAN", "MIN", "MAX", "x NGINX", "CPU s/GB");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    r.ratioToNginx() == null ? "-" : f(r.ratioToNginx()), f(r.cpuSecondsPerGb()));
        }
        table.print(out);
        out.println("x NGINX: against nginx with the same client. CPU s/GB: CPU seconds per GB moved, of this process (the socket"
                + " client; for the gateway also the store's client, master and nodes) and, for nginx, nginx's own; curl's is not counted");
        report.notes().forEach(note -> out.println("note: " + note));
        out.flush();
        return ExitCodes.OK;
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
