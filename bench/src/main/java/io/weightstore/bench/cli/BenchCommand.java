package io.weightstore.bench.cli;

import picocli.CommandLine.Command;

/**
 * Groups the benchmarks. They run outside the test suite, and outside the product: this module joins
 * the {@code weightstore} command only when it is on the class path ({@code ./weightstore bench ...}).
 * Each prints its ceilings measured in the same run.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure throughput beside the machine's ceilings (memcpy, raw loopback socket) measured in the same run.",
        subcommands = {BenchStoreCommand.class, BenchImportCommand.class, BenchLoadCommand.class, BenchCompareCommand.class,
            BenchGatewayCommand.class, BenchTransportCommand.class, BenchJmhCommand.class, BenchMasterScaleCommand.class,
            BenchClusterCommand.class, BenchFanOutCommand.class, BenchOpenCommand.class})
final class BenchCommand {}
