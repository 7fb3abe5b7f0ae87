package io.weightstore.weights.config;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A configuration file that cannot be used, with every problem found in it. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final transient List<ConfigProblem> problems;

    public ConfigException(Path file, List<ConfigProblem> problems) {
        super("config " + file + ": " + problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("; ")));
        this.file = file;
        this.problems = List.copyOf(problems);
    }

    public Path file() {
        return file;
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
