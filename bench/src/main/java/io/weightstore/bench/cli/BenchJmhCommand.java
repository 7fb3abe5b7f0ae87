package io.weightstore.bench.cli;

import io.weightstore.cli.ExitCodes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/** {@code weightstore bench jmh}: the JMH micro-benchmarks of the store's hot loops. */
@Command(name = "jmh", mixinStandardHelpOptions = true,
        description = {
            "Run the JMH micro-benchmarks: CRC32C (native and JDK), the read planner, checks as bytes arrive, the MACs",
            "that could tag data-plane chunks, and a prompt's tokenization.",
            "Arguments go to JMH as they are, e.g. 'bench jmh Crc32c -f 1 -wi 2 -i 3' or 'bench jmh -l' to list them."
        })
final class BenchJmhCommand implements Callable<Integer> {
    /** JMH's own command line, flags included, passed on untouched. */
    @Unmatched
    private List<String> args = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        CommandLineOptions options = new CommandLineOptions(args.toArray(String[]::new));
        if (options.shouldHelp() || options.shouldList()) {
            if (options.shouldHelp()) {
                options.showHelp();
            } else {
                new Runner(options).list();
            }
            return ExitCodes.OK;
        }
        new Runner(options).run();
        return ExitCodes.OK;
    }
}
