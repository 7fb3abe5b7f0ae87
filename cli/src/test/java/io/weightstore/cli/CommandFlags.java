package io.weightstore.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * A command line as a deployment file writes it, parsed by the real commands' picocli model: an
 * unknown flag, a bad value or a missing required flag fails here as it would at start-up, and the
 * ports the process will listen on are read from the parsed flags and the code's defaults.
 */
record CommandFlags(List<String> verb, ParseResult result) {
    /** Parses {@code args} (verb first, then flags), as {@code weightstore ARGS} would, without running anything. */
    static CommandFlags parse(List<String> args) {
        return parse(WeightstoreCli.unconfigured(), args);
    }

    /** Parses {@code args} with {@code cli}: the configured command line takes defaults from the file --config names. */
    static CommandFlags parse(CommandLine cli, List<String> args) {
        ParseResult parsed = cli.parseArgs(args.toArray(String[]::new));
        ParseResult leaf = parsed;
        List<String> verb = new ArrayList<>();
        while (leaf.hasSubcommand()) {
            leaf = leaf.subcommand();
            verb.add(leaf.commandSpec().name());
        }
        return new CommandFlags(List.copyOf(verb), leaf);
    }

    /** The value of {@code flag}: given, else the code's default; null when neither. */
    Object value(String flag) {
        OptionSpec option = result.commandSpec().findOption(flag);
        if (option == null) {
            throw new IllegalArgumentException("weightstore " + String.join(" ", verb) + " has no " + flag);
        }
        return option.getValue();
    }

    String text(String flag) {
        Object value = value(flag);
        return value == null ? null : value.toString();
    }

    /** The port {@code flag} makes the process listen on, or null when the flag is absent and has no default. */
    Integer port(String flag) {
        Object value = value(flag);
        return value == null ? null : ((Number) value).intValue();
    }

    boolean given(String flag) {
        return result.hasMatchedOption(flag);
    }

    /** The default of {@code flag} of {@code verb} in the code, as the --help text shows it. */
    static String defaultOf(String verb, String flag) {
        CommandLine command = WeightstoreCli.unconfigured().getSubcommands().get(verb);
        return command.getCommandSpec().findOption(flag).defaultValue();
    }
}
