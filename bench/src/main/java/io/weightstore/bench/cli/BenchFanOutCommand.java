package io.weightstore.bench.cli;

import io.weightstore.bench.cluster.FanOutBench;
import io.weightstore.bench.cluster.FanOutReport;
import io.weightstore.bench.cluster.FanOutTable;
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

/** {@code weightstore bench fanout}: many engines loading one checkpoint, as its copies are added where they load. */
@Command(name = "fanout", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Load one checkpoint on many engine hosts at once, each host also running a storage node, while the copies change:"
                    + " the imported count, --replicas auto, a copy on every node, and a copy kept by one engine's node"
                    + " (load --cache-local) that the others then read from too.",
            "",
            "Emulated hosts as in 'bench cluster' (network namespaces on a bridge, each NIC shaped with tc;"
                    + " bench/hostbed/README.md): host 0 runs the master, hosts 1..H a node and a loader each. Each step reports"
                    + " the copies per slice, the part of the checkpoint on each loader's own node, the part that crossed its"
                    + " NIC, the loaders' times and each host's share of the bytes sent.",
            "Prints a table; writes fanout.json and fanout-logs/ to --out. Needs root; exits 77, saying why, where a bed"
                    + " cannot be made.",
            ""
        })
final class BenchFanOutCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--hosts", defaultValue = "8", paramLabel = "H",
            description = "Engine hosts, each running a node and a loader (the master gets a host of its own). Default: ${DEFAULT-VALUE}.")
    private int hosts;

    @Option(names = "--nic-rate", defaultValue = "1gbit", paramLabel = "RATE",
            description = "Each host's NIC rate, in each direction: NUM[k|m|g]bit. Default: ${DEFAULT-VALUE}.")
    private String nicRate;

    @Option(names = "--size", defaultValue = "512M", paramLabel = "SIZE",
            description = "Size of the synthetic checkpoint (binary units: 512M, 2G). Default: ${DEFAULT-VALUE}.")
    private String size;

    @Option(names = "--replicas", defaultValue = "2", paramLabel = "R",
            description = "Copies the checkpoint is imported with, and returns to before the --cache-local steps (below H)."
                    + " Default: ${DEFAULT-VALUE}.")
    private int replicas;

    @Option(names = "--slice-size", defaultValue = "16M", paramLabel = "SIZE",
            description = "The master's slice size: smaller slices spread a file over more nodes. Default: ${DEFAULT-VALUE}.")
    private String sliceSize;

    @Option(names = "--copy-rate", defaultValue = "64M", paramLabel = "SIZE",
            description = "Bytes per second each node may copy for the master (its --copy-rate). Default: ${DEFAULT-VALUE}.")
    private String copyRate;

    @Option(names = "--connections", defaultValue = "4", paramLabel = "C", description = "Each loader's connections. Default: ${DEFAULT-VALUE}.")
    private int connections;

    @Option(names = "--no-barrier", negatable = false,
            description = "Start a step's loaders and let them run, rather than holding each after its first 4 MiB over its NIC"
                    + " until all have started.")
    private boolean noBarrier;

    @Option(names = "--prefix", paramLabel = "P",
            description = "Names of the bed's namespaces and links: wsbed and up to 4 of [a-z0-9]. Default: random.")
    private String prefix;

    @Option(names = "--out", defaultValue = "bench-results", paramLabel = "DIR",
            description = "Directory for fanout.json and fanout-logs/. Default: ${DEFAULT-VALUE}.")
    private Path out;

    @Option(names = "--json", description = "Print the report as JSON rather than as a table (progress still goes to stderr).")
    private boolean json;

    @Override
    public Integer call() throws Exception {
        FanOutBench.Settings settings = new FanOutBench.Settings(hosts, nicRate, size, replicas, sliceSize, copyRate, connections,
                !noBarrier, prefix == null ? HostBed.randomPrefix() : prefix, out);
        FanOutReport report;
        try {
            report = new FanOutBench(settings).run();
        } catch (HostBedUnavailableException e) {
            spec.commandLine().getErr().println("weightstore: bench fanout: cannot make a host bed here: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return HostBed.EXIT_UNAVAILABLE;
        }
        Files.createDirectories(out);
        Path jsonFile = out.resolve("fanout.json");
        Files.writeString(jsonFile, Json.mapper().writeValueAsString(report) + "\n");
        PrintWriter stdout = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(stdout, report);
        } else {
            FanOutTable.print(stdout, report);
            stdout.printf("wrote %s; logs in %s%n", jsonFile, out.resolve("fanout-logs"));
            stdout.flush();
        }
        return ExitCodes.OK;
    }
}
