package io.weightstore.bench.cli;

import io.weightstore.bench.cluster.ClusterBench;
import io.weightstore.bench.cluster.ClusterChart;
import io.weightstore.bench.cluster.ClusterReport;
import io.weightstore.bench.cluster.ClusterTable;
import io.weightstore.bench.cluster.HostBed;
import io.weightstore.bench.cluster.HostBedUnavailableException;
import io.weightstore.cli.ExitCodes;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.weights.Json;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code weightstore bench cluster}: a cluster of emulated hosts on this machine, each host's NIC the limit. */
@Command(name = "cluster", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Run a cluster on emulated hosts (network namespaces on a bridge, each NIC shaped with tc; bench/hostbed/README.md)"
                    + " and measure what distribution buys when each host's NIC, not the CPU, is the limit.",
            "",
            "Host 0 runs the master and an nginx origin, hosts 1..K storage nodes (0..K-1 with --hosts K+M), the next M"
                    + " hosts loaders: separate"
                    + " 'weightstore' processes. A synthetic checkpoint is imported, then each run measures:",
            "  raw      M raw TCP streams at once, node host to loader host: the bed's own ceiling;",
            "  fan-in   M loaders loading the checkpoint at once from the K nodes: aggregate and per-loader GB/s against"
                    + " min(K, M) x NIC, and each node host's share of the bytes served (from its NIC counters);",
            "  nginx    the same M hosts fetching the same files at once from nginx on one host (curl, parallel 64 MiB"
                    + " HTTP Range requests): the single origin most loaders use today;",
            "  TP       with --tp-size T > 1, T ranks on T hosts: the bytes each rank's NIC received, and its time;",
            "  same host / remote  one loader alone on a node's host (it maps that node's pool), then one on another host.",
            "Receivers of a phase are held after their first 4 MiB until all have started, as JVMs start seconds apart on"
                    + " shared cores. Prints a table; writes cluster.json, cluster.svg and cluster-logs/ to --out.",
            "Needs root, nginx and curl (bench/install-peers.sh); exits 77, saying why, where a bed cannot be made.",
            ""
        })
final class BenchClusterCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--hosts", paramLabel = "N",
            description = "Hosts on the bed, at least K + M. With K + M, the master and nginx share the first node's host; with"
                    + " more, they get host 0 to themselves, and hosts beyond 1 + K + M stay idle. Default: 1 + K + M.")
    private Integer hosts;

    @Option(names = "--nodes", defaultValue = "4", paramLabel = "K", description = "Hosts running a storage node. Default: ${DEFAULT-VALUE}.")
    private int nodes;

    @Option(names = "--loaders", defaultValue = "4", paramLabel = "M",
            description = "Hosts running a loader (and a curl in the nginx phase). Default: ${DEFAULT-VALUE}.")
    private int loaders;

    @Option(names = "--nic-rate", defaultValue = "1gbit", paramLabel = "RATE",
            description = "Each host's NIC rate, in each direction: NUM[k|m|g]bit. Default: ${DEFAULT-VALUE}.")
    private String nicRate;

    @Option(names = "--latency", defaultValue = "0", paramLabel = "MS",
            description = "One-way delay added on each NIC, in milliseconds (0.2 is 200 us); needs the netem qdisc, and is refused,"
                    + " saying why, on kernels without it (this project's machines). Default: ${DEFAULT-VALUE}.")
    private double latency;

    @Option(names = "--size", defaultValue = "256M", paramLabel = "SIZE",
            description = "Size of the synthetic checkpoint (binary units: 256M, 2G). Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--replicas", defaultValue = "2", paramLabel = "R",
            description = "Copies of each slice, on distinct nodes (at most K). Default: ${DEFAULT-VALUE}.")
    private int replicas;

    @Option(names = "--tp-size", defaultValue = "1", paramLabel = "T",
            description = "Also load T tensor-parallel ranks, one per loader host (T <= M); 1 skips that phase. Default: ${DEFAULT-VALUE}.")
    private int tpSize;

    @Option(names = "--runs", defaultValue = "1", paramLabel = "N",
            description = "Repetitions of every phase; figures are medians over them. Default: ${DEFAULT-VALUE}.")
    private int runs;

    @Option(names = "--connections", defaultValue = "4", paramLabel = "C",
            description = "Each loader's connections, and each curl's parallel range requests. Default: ${DEFAULT-VALUE}.")
    private int connections;

    @Option(names = "--no-barrier", negatable = false,
            description = "Start a phase's receivers and let them run, rather than holding each after its first 4 MiB until all"
                    + " have started.")
    private boolean noBarrier;

    @Option(names = "--prefix", paramLabel = "P",
            description = "Names of the bed's namespaces and links: wsbed and up to 4 of [a-z0-9]. Default: random.")
    private String prefix;

    @Option(names = "--out", defaultValue = "bench-results", paramLabel = "DIR",
            description = "Directory for cluster.json, cluster.svg and cluster-logs/. Default: ${DEFAULT-VALUE}.")
    private Path out;

    @Option(names = "--json", description = "Print the report as JSON rather than as a table (progress still goes to stderr).")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        ClusterBench.Settings settings = new ClusterBench.Settings(hosts == null ? 1 + nodes + loaders : hosts, nodes, loaders, nicRate,
                latency, size, replicas, tpSize, runs, connections, !noBarrier,
                prefix == null ? HostBed.randomPrefix() : prefix, out);
        ClusterReport report;
        try {
            report = new ClusterBench(settings).run();
        } catch (HostBedUnavailableException e) {
            spec.commandLine().getErr().println("weightstore: bench cluster: cannot make a host bed here: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return HostBed.EXIT_UNAVAILABLE;
        }
        Files.createDirectories(out);
        Path jsonFile = out.resolve("cluster.json");
        Files.writeString(jsonFile, Json.mapper().writeValueAsString(report) + "\n");
        Path svg = out.resolve("cluster.svg");
        ClusterChart.write(svg, report);
        PrintWriter stdout = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(stdout, report);
        } else {
            ClusterTable.print(stdout, report);
            stdout.printf("wrote %s and %s; logs in %s%n", jsonFile, svg, out.resolve("cluster-logs"));
            stdout.flush();
        }
        return ExitCodes.OK;
    }
}
