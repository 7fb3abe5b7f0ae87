package io.weightstore.cli;

import picocli.CommandLine.Command;

/** Groups the benchmarks. They run outside the test suite; each prints its ceilings measured in the same run. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure throughput beside the machine's ceilings (memcpy, raw loopback socket) measured in the same run.",
        subcommands = {BenchStoreCommand.class, BenchLoadCommand.class, BenchCompareCommand.class})
final class BenchCommand {}
