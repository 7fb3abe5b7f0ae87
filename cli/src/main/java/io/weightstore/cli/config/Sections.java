package io.weightstore.cli.config;

import io.weightstore.weights.config.ConfigFile;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How the configuration file maps onto flags: a section per server verb, whose keys are that verb's
 * long flag names without the dashes, and the client section for the store selection of every
 * other verb. Secrets stay out of the file, and out of these defaults.
 */
final class Sections {
    /** Verbs whose every flag the file can set, under a section of the verb's name. */
    static final List<String> VERBS = List.of("master", "node", "gateway", "serve");
    /** Every section a file may have. */
    static final List<String> ALL = List.of(ConfigFile.CLIENT, "master", "node", "gateway", "serve");
    /** The store selection: what the client section sets for verbs other than master and node. */
    static final Set<String> SELECTION = Set.of("store", "credentials", "connections");
    /** Flags that are not settings. */
    static final Set<String> NOT_SETTINGS = Set.of("help", "version", "config");
    /** Secrets, with the variable that gives each instead: a file is copied, backed up and read by more people than a key should be. */
    static final Map<String, String> SECRETS = Map.of("api-key", "WEIGHTSTORE_API_KEY", "secret-key", "WEIGHTSTORE_GATEWAY_SECRET_KEY");

    private Sections() {}

    /** The top-level verb an option belongs to ({@code model} for {@code model import}), or "" for the root command's own. */
    static String verbOf(OptionSpec option) {
        CommandSpec command = option.command();
        if (command == null || command.parent() == null) {
            return "";
        }
        while (command.parent().parent() != null) {
            command = command.parent();
        }
        return command.name();
    }

    /** The key an option has in a section: its longest name without the dashes. */
    static String keyOf(OptionSpec option) {
        String name = option.longestName();
        return name.startsWith("--") ? name.substring(2) : null;
    }
}
