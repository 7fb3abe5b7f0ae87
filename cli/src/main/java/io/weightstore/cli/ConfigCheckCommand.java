package io.weightstore.cli;

import io.weightstore.cli.config.ConfigCheck;
import io.weightstore.cli.output.JsonOutput;
import io.weightstore.weights.config.ConfigException;
import io.weightstore.weights.config.ConfigFile;
import io.weightstore.weights.config.ConfigProblem;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code weightstore config check FILE}: every problem of a configuration file, each where it is. */
@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Check a configuration file as master, node, gateway, serve and every client would read it: YAML, known sections",
            "(client, master, node, gateway, serve), known keys (a verb's flags without the dashes), values its flags take,",
            "ports in range, sizes, durations, and credentials directories and token files that exist. Prints each problem",
            "with its line and column; exits 1 when there is one."
        })
final class ConfigCheckCommand implements Callable<Integer> {
    /** What {@code --json} prints. */
    record Report(String file, boolean valid, List<String> sections, List<ConfigProblem> problems) {}

    @Spec
    private CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "The YAML file to check.")
    private Path file;

    @Option(names = "--json", description = "Print the verdict as JSON: file, valid, sections, problems (line, column, section, key, message).")
    private boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<ConfigProblem> problems;
        List<String> sections = List.of();
        try {
            ConfigFile config = ConfigFile.read(file);
            sections = List.copyOf(config.sections().keySet());
            problems = new ConfigCheck(WeightstoreCli::unconfigured).check(config);
        } catch (ConfigException e) {
            problems = e.problems();
        }
        if (json) {
            JsonOutput.print(out, new Report(file.toString(), problems.isEmpty(), sections, problems));
        } else {
            for (ConfigProblem problem : problems) {
                String where = problem.section().isEmpty() ? ""
                        : problem.key().isEmpty() ? problem.section() + ": " : problem.section() + "." + problem.key() + ": ";
                out.printf("%s:%d:%d: %s%s%n", file, problem.line(), problem.column(), where, problem.message());
            }
            out.printf("%s: %s%n", file, problems.isEmpty() ? "OK (" + (sections.isEmpty() ? "no sections" : String.join(", ", sections)) + ")"
                    : problems.size() + (problems.size() == 1 ? " problem" : " problems"));
        }
        out.flush();
        return problems.isEmpty() ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}
