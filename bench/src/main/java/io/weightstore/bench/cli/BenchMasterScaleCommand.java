package io.weightstore.bench.cli;

import io.weightstore.bench.Latencies;
import io.weightstore.bench.MasterScaleBench;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.cli.output.Table;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.weights.ByteSizes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench master-scale}: a group of masters under a simulated fleet. */
@Command(name = "master-scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Load a group of masters (in this process, over gRPC, on a 3-member etcd) as a fleet would: simulated nodes",
            "heartbeat, the catalog is filled with checkpoints through the put path, then loaders stat, lease, renew and",
            "release their files. Prints latency percentiles per call, etcd's size, and the hand-over time at that size.",
            "Starts and stops its own etcd unless --etcd is given (bench/install-peers.sh installs etcd)."
        })
final class BenchMasterScaleCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--nodes", defaultValue = "1000", description = "Simulated storage nodes, at most 65536, each at an address of its own in 127.0.0.0/16. Default: ${DEFAULT-VALUE}.")
    private int nodes;

    @Option(names = "--checkpoints", defaultValue = "10000", description = "Checkpoints in the catalog. Default: ${DEFAULT-VALUE}.")
    private int checkpoints;

    @Option(names = "--files", defaultValue = "10",
            description = "Objects per checkpoint: a manifest, 3 small files, the rest 256 MiB weight files. Default: ${DEFAULT-VALUE}.")
    private int files;

    @Option(names = "--loaders", defaultValue = "1000", description = "Concurrent loaders. Default: ${DEFAULT-VALUE}.")
    private int loaders;

    @Option(names = "--duration", defaultValue = "60", paramLabel = "SECONDS",
            description = "How long the loaders run. Default: ${DEFAULT-VALUE}.")
    private int duration;

    @Option(names = "--lease", defaultValue = "30", paramLabel = "SECONDS",
            description = "Read lease the loaders take (the client's default); they renew at half. Default: ${DEFAULT-VALUE}.")
    private int lease;

    @Option(names = "--masters", defaultValue = "3", description = "Masters in the group. Default: ${DEFAULT-VALUE}.")
    private int masters;

    @Option(names = "--etcd", defaultValue = "", paramLabel = "URL[,URL...]", description = "Use this etcd instead of starting one.")
    private String etcd;

    @Option(names = "--dir", defaultValue = "/dev/shm", paramLabel = "DIR",
            description = "Where the bench's own etcd keeps its data. Default: ${DEFAULT-VALUE}.")
    private Path dir;

    @Option(names = "--leases-per-file", description = "Loaders take, renew and end each file's lease in a call of its own, "
            + "as clients did before LocateAll (default: together, a call each, as the client does).")
    private boolean leasesPerFile;

    @Option(names = "--json", description = "Print the report as JSON.")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || checkpoints < 1 || files < 5 || loaders < 1 || duration < 1 || lease < 1 || masters < 1) {
            throw new IllegalArgumentException("--nodes, --checkpoints, --loaders, --duration, --lease and --masters must be >= 1, "
                    + "--files >= 5 (a manifest, 3 small files, weights)");
        }
        if (nodes > 65_536) {
            throw new IllegalArgumentException("--nodes must be at most 65536 (an address of 127.0.0.0/16 each), got " + nodes);
        }
        PrintWriter out = spec.commandLine().getOut();
        MasterScaleBench.Report report = MasterScaleBench.run(new MasterScaleBench.Settings(nodes, checkpoints, files, loaders,
                Duration.ofSeconds(duration), Duration.ofSeconds(lease), masters, etcd, dir, leasesPerFile), json ? new PrintWriter(PrintWriter.nullWriter())
                : out);
        if (json) {
            JsonOutput.print(out, report);
            return ExitCodes.OK;
        }
        out.printf("%nfilling %d objects: %.0f s (%.0f objects/s)%n", report.objects(), report.fillSeconds(),
                report.objects() / report.fillSeconds());
        print(out, report.fill());
        out.printf("%n%d loaders for %.0f s: %d load cycles (stat, %d leases, renewals, releases)%n", loaders, report.loadSeconds(),
                report.loadCycles(), files - 1);
        print(out, report.load());
        out.printf("%netcd: %d keys, %s of keys and values live", report.liveKeys(), ByteSizes.format(report.liveBytes()));
        for (EtcdMemberStatus member : report.etcd()) {
            out.printf("; %s db %s", member.endpoint(), member.healthy() ? ByteSizes.format(member.dbSizeBytes()) : "down");
        }
        out.printf("%nhand-over at this size (leader closed until a stat is answered): %d ms%n", report.handOverMs());
        return ExitCodes.OK;
    }

    private static void print(PrintWriter out, List<Latencies.Summary> rows) {
        Table table = new Table("CALL", "CALLS", "FAILED", "PER SECOND", "P50 MS", "P99 MS", "MAX MS")
                .alignRight("CALLS", "FAILED", "PER SECOND", "P50 MS", "P99 MS", "MAX MS");
        for (var row : rows) {
            table.row(row.op(), String.valueOf(row.calls()), String.valueOf(row.failures()), String.format(Locale.ROOT, "%.0f", row.perSecond()),
                    String.format(Locale.ROOT, "%.2f", row.p50Ms()), String.format(Locale.ROOT, "%.2f", row.p99Ms()),
                    String.format(Locale.ROOT, "%.1f", row.maxMs()));
        }
        table.print(out);
    }
}
