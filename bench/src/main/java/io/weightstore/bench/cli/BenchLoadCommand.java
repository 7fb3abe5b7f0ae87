package io.weightstore.bench.cli;

import io.weightstore.bench.LoadBench;
import picocli.CommandLine.Command;

/** {@code weightstore bench load}: whole-checkpoint loads by the store's paths and from local disk. */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure loading a whole synthetic checkpoint by the loader's paths and from local disk.",
            "Through the loader (3-node loopback cluster, and the same-host path), from the same files on local disk",
            "(FileChannel, mmap), and at TP=4 with every rank; beside the store's raw read speed, memcpy and a raw sendfile",
            "socket, all measured in this run."
        })
final class BenchLoadCommand extends LoadBenchCommand {
    @Override
    boolean peers() {
        return false;
    }

    @Override
    int peerConnections() {
        return 1;
    }

    @Override
    void written(LoadBench.Report report, Result result) {}
}
