package io.weightstore.bench.cli;

import io.weightstore.bench.Measurement;
import io.weightstore.bench.TransportBench;
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

/** {@code weightstore bench transport}: the data plane's transports (plain, TLS 1.3 per suite, MAC) against each other. */
@Command(name = "transport", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure the data-plane transports on loopback: a file sent over --connections connections into off-heap memory",
            "by plain sendfile (the store's path today), mutual TLS 1.3 with each cipher suite, and the MAC transport",
            "(mutual TLS handshake, then authenticated chunks in clear). Paths are timed in turns; CPU time per byte is",
            "each side's threads' user and system time. Needs SIZE of space in --dir."
        })
final class BenchTransportCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--size", defaultValue = "1G", paramLabel = "SIZE", description = "Bytes per transfer. Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--connections", defaultValue = "4", paramLabel = "N", description = "Parallel connections. Default: ${DEFAULT-VALUE}.")
    private int connections;

    @Option(names = "--runs", defaultValue = "5", description = "Timed runs per path, after three untimed warm-up runs of each. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--dir", defaultValue = "/dev/shm", paramLabel = "DIR",
            description = "Where the file to send goes; /dev/shm keeps it in memory, as a node's pool. Default: ${DEFAULT-VALUE}.")
    private Path dir;

    @Option(names = "--json", description = "Print the measurements as JSON.")
    private boolean json;

    /** What {@code --json} prints. */
    record Result(long bytes, int connections, int runs, List<Row> rows) {}

    /** One path: throughput, its ratio to plain, CPU per byte on each side, and the median time to open a connection. */
    record Row(String path, String detail, double medianGbPerSecond, double minGbPerSecond, double maxGbPerSecond,
            List<Double> gbPerSecond, double ratioToPlain, double senderCpuNsPerByte, double receiverCpuNsPerByte,
            double connectMillis) {}

    @Override
    public Integer call() throws Exception {
        if (runs < 1 || connections < 1) {
            throw new IllegalArgumentException("--runs and --connections must be >= 1, found " + runs + " and " + connections);
        }
        TransportBench.Report report = TransportBench.run(dir, ByteSizes.parse(size), connections, runs);
        double plain = report.rows().getFirst().throughput().median();
        List<Row> rows = new ArrayList<>();
        for (TransportBench.Row r : report.rows()) {
            Measurement m = r.throughput();
            rows.add(new Row(m.path(), m.detail(), m.median(), m.min(), m.max(), m.gbPerSecond(), m.median() / plain,
                    r.senderCpuNsPerByte(), r.receiverCpuNsPerByte(), r.handshake().toNanos() / 1e6));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, new Result(report.bytes(), report.connections(), report.runs(), rows));
            return ExitCodes.OK;
        }
        out.printf("%s per run over %d connections, %d runs per path in turns (GB/s; CPU in ns per byte, user + system)%n",
                ByteSizes.format(report.bytes()), report.connections(), report.runs());
        Table table = new Table("PATH", "DETAIL", "MEDIAN", "MIN", "MAX", "x PLAIN", "SEND CPU", "RECV CPU", "CONNECT ms")
                .alignRight("MEDIAN", "MIN", "MAX", "x PLAIN", "SEND CPU", "RECV CPU", "CONNECT ms");
        for (Row r : rows) {
            table.row(r.path(), r.detail(), f(r.medianGbPerSecond()), f(r.minGbPerSecond()), f(r.maxGbPerSecond()),
                    f(r.ratioToPlain()), f(r.senderCpuNsPerByte()), f(r.receiverCpuNsPerByte()), f(r.connectMillis()));
        }
        table.print(out);
        return ExitCodes.OK;
    }

    private static String f(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
