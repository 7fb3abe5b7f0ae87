package io.weightstore.cli;

import io.weightstore.cli.config.ConfiguredCommandLine;
import io.weightstore.format.SafetensorsFormatException;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.master.RocksNativeLibrary;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.WeightstoreHome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The {@code weightstore} command: every user-facing verb is a subcommand of this one. */
@Command(
        name = "weightstore",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "A distributed model-weight store for the JVM, and the loader that streams weights out of it.",
        subcommands = {
            QuickstartCommand.class,
            SynthCommand.class,
            FileCommand.class,
            ModelCommand.class,
            LoadCommand.class,
            GenerateCommand.class,
            ServeCommand.class,
            GatewayCommand.class,
            StoreCommand.class,
            MasterCommand.class,
            NodeCommand.class,
            CertCommand.class,
            ConfigCommand.class,
            CompletionCommand.class,
            ManCommand.class,
            ClusterTrainingCommand.class,
            HelpCommand.class
        },
        footerHeading = "%nLauncher:%n",
        footer = {
            "  ./weightstore test [ARGS]   run the test suite (./mvnw verify ARGS) with a JDK 25",
            "  ./weightstore bench ...     benchmarks: store reads, loads, comparisons (bench module, not in the product)",
            "  ./weightstore image         the container image, built by Jib to cli/target/weightstore-image.tar (no Docker daemon)",
            "",
            "Exit codes: 0 ok, 1 failure or bad data found, 2 usage error, 130 interrupted (Ctrl-C), 143 stopped (SIGTERM).",
            "Run 'weightstore help COMMAND [SUBCOMMAND]' or 'weightstore COMMAND --help' for a command's flags."
        })
public final class WeightstoreCli implements Runnable {
    @Spec
    private CommandSpec spec;

    // Read from the arguments before picocli parses them (ConfiguredCommandLine): declared here for parsing and --help.
    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "Configuration file (YAML) whose settings are this command's defaults; flags and environment variables "
                    + "win over it. Default: $WEIGHTSTORE_CONFIG.")
    private Path config;

    /**
     * gRPC's channel logs an unresolvable host with a stack trace through java.util.logging, and the
     * command then reports the same failure in one line: keep only its severe records. Held in a
     * field because java.util.logging keeps loggers weakly, and a collected one forgets its level.
     */
    private static final java.util.logging.Logger GRPC_CHANNEL = java.util.logging.Logger.getLogger(
            "io.grpc.internal.ManagedChannelImpl");

    public static void main(String[] args) {
        GRPC_CHANNEL.setLevel(java.util.logging.Level.SEVERE);
        // A process that opens the embedded store (or is a master) then loads RocksDB's library kept under the home.
        if (System.getProperty(RocksNativeLibrary.DIRECTORY_PROPERTY) == null) {
            System.setProperty(RocksNativeLibrary.DIRECTORY_PROPERTY, WeightstoreHome.resolve().resolve("native").toString());
        }
        EmbeddedStorePreload.startIfWanted(List.of(args));
        CommandLine cli = commandLine();
        System.setProperty(EmbeddedStore.HOLDER_PROPERTY, holderName(cli, args));
        int code;
        try {
            code = cli.execute(args);
        } catch (Error e) {
            // picocli hands only Exceptions to the handler: an Error (a native library that cannot load, say) would end the
            // process with a stack trace, and, with a server's threads started, maybe not end it at all.
            Throwable reason = e instanceof ExceptionInInitializerError && e.getCause() != null ? e.getCause() : e;
            System.err.println("weightstore: error: " + reason);
            code = ExitCodes.FAILURE;
        }
        System.exit(code);
    }

    /** Every verb's --version (which each --help lists) and manual page say the build, as the top command's do. */
    private static void versionEverywhere(CommandLine command, IVersionProvider version) {
        command.getCommandSpec().versionProvider(version);
        command.getSubcommands().values().forEach(sub -> versionEverywhere(sub, version));
    }

    /**
     * "weightstore" and the verb {@code args} name, down to the last subcommand, with none of its
     * arguments: what the next process to find the embedded store held is told.
     */
    static String holderName(CommandLine cli, String... args) {
        StringBuilder name = new StringBuilder("weightstore");
        CommandLine command = cli;
        for (String arg : args) {
            command = command.getSubcommands().get(arg);
            if (command == null) {
                break;
            }
            name.append(' ').append(arg);
        }
        return name.toString();
    }

    /**
     * The configured command line, with defaults from the configuration file; tests run verbs
     * through it in-process.
     */
    public static CommandLine commandLine() {
        return configure(new ConfiguredCommandLine(new WeightstoreCli(), WeightstoreCli::unconfigured));
    }

    /** The same commands without defaults from any file: what a configuration file is checked against. */
    static CommandLine unconfigured() {
        return configure(new CommandLine(new WeightstoreCli()));
    }

    private static CommandLine configure(CommandLine cli) {
        ServiceLoader.load(CommandPlugin.class).forEach(plugin -> cli.addSubcommand(plugin.command()));
        versionEverywhere(cli, new Version());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("weightstore: error: " + FlagWording.of(commandLine.getCommandSpec(), describe(e)));
            commandLine.getErr().flush();
            return isUsageError(e) ? ExitCodes.USAGE : ExitCodes.FAILURE;
        });
        return cli;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    private static boolean isUsageError(Throwable e) {
        // A host name that does not resolve (yet: DNS at boot) is the network's, not the command line's: a service manager
        // restarts after a failure, never after a usage error.
        return e instanceof IllegalArgumentException && !(e instanceof UnresolvedAddressException)
                || e instanceof StoreException s && s.code() == StoreException.Code.INVALID_ARGUMENT
                || e instanceof CheckpointException c && c.code() == CheckpointException.Code.INVALID
                        && !(c.getCause() instanceof SafetensorsFormatException);
    }

    private static String describe(Throwable e) {
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        return switch (cause) {
            case SafetensorsFormatException f -> f.getMessage();
            case StoreException f -> f.getMessage();
            case CheckpointException f -> f.getMessage();
            case FileSystemException f when f.getReason() != null -> f.getMessage();
            case NoSuchFileException f -> "no such file: " + f.getFile();
            case AccessDeniedException f -> "permission denied: " + f.getFile();
            case FileAlreadyExistsException f -> "already exists: " + f.getFile();
            case NotDirectoryException f -> "not a directory: " + f.getFile();
            case DirectoryNotEmptyException f -> "directory not empty: " + f.getFile();
            case FileSystemException f -> f.getFile() + ": " + f.getClass().getSimpleName();
            // The message names what failed; the class name would only add noise (and hide a bare message).
            case IOException io -> io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage();
            default -> cause.getMessage() == null ? cause.toString() : cause.getMessage();
        };
    }
}
