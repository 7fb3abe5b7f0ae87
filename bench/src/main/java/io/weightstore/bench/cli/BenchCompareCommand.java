package io.weightstore.bench.cli;

import io.weightstore.bench.LoadBench;
import io.weightstore.bench.SvgChart;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weightstore bench compare}: weightstore beside what a user would pick instead, with a chart. */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Compare weightstore with local disk, nginx and Redis at loading a checkpoint; writes a table, JSON and a chart.",
            "Everything 'bench load' measures, plus nginx serving the files to HTTP Range requests and Redis holding them in",
            "64 MiB chunks, each fetched over --connections parallel connections (install them with bench/install-peers.sh;",
            "the bench starts and stops its own instances on loopback). Writes compare.json and compare.svg to --out."
        })
final class BenchCompareCommand extends LoadBenchCommand {
    @Option(names = "--connections", defaultValue = "4", paramLabel = "N",
            description = "Parallel connections to nginx and Redis. Default: ${DEFAULT-VALUE}.")
    int connections;

    @Option(names = "--out", defaultValue = "bench-results", paramLabel = "DIR",
            description = "Directory for compare.json and compare.svg. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Override
    boolean peers() {
        return true;
    }

    @Override
    int peerConnections() {
        return connections;
    }

    @Override
    void written(LoadBench.Report report, Result result) throws Exception {
        Files.createDirectories(out);
        Path json = out.resolve("compare.json");
        Files.writeString(json, Json.mapper().writeValueAsString(result));
        Path svg = out.resolve("compare.svg");
        SvgChart.write(svg, "Loading a " + ByteSizes.format(report.checkpointBytes()) + " checkpoint into off-heap memory",
                all(report));
        if (!this.json) {
            spec.commandLine().getOut().printf("wrote %s and %s%n", json, svg);
        }
    }
}
