package io.weightstore.cli.config;

import io.weightstore.cli.ExitCodes;
import io.weightstore.weights.config.ConfigException;
import io.weightstore.weights.config.ConfigFile;
import io.weightstore.weights.config.ConfigProblem;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * The command line with its defaults from the configuration file. Picocli settles every option's
 * default before it reads the options, so {@code --config FILE} is looked for in the arguments
 * first; the file (or {@code $WEIGHTSTORE_CONFIG}'s) is read and checked, and a problem in a
 * section the verb reads stops the command with all of them, before anything starts. Verbs that only describe
 * (help, completion, the man page, {@code config check} itself) do not read it.
 */
public final class ConfiguredCommandLine extends CommandLine {
    private static final Set<String> DESCRIBING = Set.of("help", "completion", "man", "config");
    private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");

    private final Supplier<CommandLine> fresh;

    /** {@code fresh} makes an unconfigured command line of the same commands, to check files against. */
    public ConfiguredCommandLine(Object command, Supplier<CommandLine> fresh) {
        super(command);
        this.fresh = fresh;
    }

    @Override
    public int execute(String... args) {
        String before = System.getProperty(ConfigFile.PROPERTY);
        try {
            // Code that reads the file without a command line (an engine's store selection) finds it there.
            named(args).ifPresent(path -> System.setProperty(ConfigFile.PROPERTY, path.toString()));
            configure(args);
            return super.execute(args);
        } catch (ConfigException e) {
            getErr().println("weightstore: error: " + e.getMessage());
            getErr().flush();
            return ExitCodes.USAGE; // a bad configuration file is a usage error, as a bad flag is
        } finally {
            if (before == null) {
                System.clearProperty(ConfigFile.PROPERTY);
            } else {
                System.setProperty(ConfigFile.PROPERTY, before);
            }
        }
    }

    @Override
    public ParseResult parseArgs(String... args) {
        try {
            configure(args);
        } catch (ConfigException e) {
            throw new ParameterException(this, e.getMessage(), e);
        }
        return super.parseArgs(args);
    }

    /** Installs the defaults of the file the arguments or the environment name. */
    private void configure(String... args) throws ConfigException {
        Optional<ConfigFile> file = Optional.empty();
        Optional<Path> path = named(args).or(ConfigFile::location);
        if (!describing(args) && path.isPresent()) {
            file = Optional.of(ConfigFile.read(path.get()));
            List<ConfigProblem> problems = new ConfigCheck(fresh).check(file.get(), verb(args));
            if (!problems.isEmpty()) {
                throw new ConfigException(file.get().path(), problems);
            }
        }
        setDefaultValueProvider(new ConfigDefaults(file));
    }

    /** The file of {@code --config FILE} or {@code --config=FILE}, up to a {@code --} that ends the options. */
    private static Optional<Path> named(String... args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            // A --config without its FILE is left to picocli, which says so.
            if (args[i].equals("--config") && i + 1 < args.length) {
                return Optional.of(Path.of(args[i + 1]));
            }
            if (args[i].startsWith("--config=")) {
                return Optional.of(Path.of(args[i].substring("--config=".length())));
            }
        }
        return Optional.empty();
    }

    /** The verb is one that only describes, or help or the version is asked for. */
    private static boolean describing(String... args) {
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            if (HELP.contains(args[i])) {
                return true;
            }
        }
        return verb(args).filter(DESCRIBING::contains).isPresent();
    }

    /** The top-level verb: the first argument that is neither an option nor --config's FILE. */
    private static Optional<String> verb(String... args) {
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            if (args[i].equals("--config")) {
                i++;
            } else if (!args[i].startsWith("-")) {
                return Optional.of(args[i]); // the root command has no option that takes a value but --config
            }
        }
        return Optional.empty();
    }
}
