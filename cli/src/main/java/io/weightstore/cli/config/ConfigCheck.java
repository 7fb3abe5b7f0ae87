package io.weightstore.cli.config;

import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.weights.ByteSizes;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.config.ConfigFile;
import io.weightstore.weights.config.ConfigProblem;
import io.weightstore.weights.config.ConfigValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Checks a configuration file against the flags themselves: a key is known when its verb has that
 * flag, and a value is good when the flag's own converter takes it (so a duration, a number or a
 * path is judged exactly as on the command line). On top: ports in range, sizes that parse, and
 * credentials directories and token files that exist. Every problem is reported, each at its line
 * and column.
 */
public final class ConfigCheck {
    private final Supplier<CommandLine> commands;

    /** {@code commands} makes a fresh, unconfigured command line to judge values with. */
    public ConfigCheck(Supplier<CommandLine> commands) {
        this.commands = commands;
    }

    /**
     * The problems a run of {@code verb} (a top-level verb, or empty for the bare command) meets: those
     * in the sections it reads, and unknown sections, which may be one of those misspelt. A host
     * sharing one file between roles runs its node with the master's credentials directory unreadable
     * or absent; {@code config check} still reports every section.
     */
    public List<ConfigProblem> check(ConfigFile file, Optional<String> verb) {
        String name = verb.orElse("");
        return check(file).stream().filter(p -> reads(name, p) || !Sections.ALL.contains(p.section())).toList();
    }

    /**
     * Whether {@code verb} reads the setting {@code problem} is about, as {@link ConfigDefaults} reads
     * them: a server verb its own section; the node, of the client's, only the store (as its master);
     * the master none of it; every other verb the client section.
     */
    private static boolean reads(String verb, ConfigProblem problem) {
        if (problem.section().equals(ConfigFile.CLIENT)) {
            return switch (verb) {
                case "master" -> false;
                case "node" -> problem.key().equals("store");
                default -> true;
            };
        }
        return problem.section().equals(verb) && Sections.VERBS.contains(verb);
    }

    public List<ConfigProblem> check(ConfigFile file) {
        List<ConfigProblem> problems = new ArrayList<>();
        for (Map.Entry<String, ConfigFile.Section> entry : file.sections().entrySet()) {
            String section = entry.getKey();
            ConfigFile.Section values = entry.getValue();
            if (!Sections.ALL.contains(section)) {
                problems.add(new ConfigProblem(values.line(), values.column(), section, "", "unknown section"
                        + Suggestions.closest(section, Sections.ALL) + "; sections are " + String.join(", ", Sections.ALL)));
                continue;
            }
            CommandLine root = commands.get();
            for (Map.Entry<String, ConfigValue> setting : values.values().entrySet()) {
                String problem = section.equals(ConfigFile.CLIENT) ? checkClient(setting.getKey(), setting.getValue())
                        : checkFlag(root, section, setting.getKey(), setting.getValue());
                if (problem != null) {
                    problems.add(new ConfigProblem(setting.getValue().line(), setting.getValue().column(), section, setting.getKey(),
                            problem));
                }
            }
        }
        problems.sort(Comparator.comparingInt(ConfigProblem::line).thenComparingInt(ConfigProblem::column));
        return problems;
    }

    private static String checkClient(String key, ConfigValue value) {
        if (!StoreLocator.CLIENT_KEYS.contains(key)) {
            List<String> keys = StoreLocator.CLIENT_KEYS.stream().sorted().toList();
            return "unknown setting" + Suggestions.closest(key, keys) + "; the client section takes " + String.join(", ", keys);
        }
        if (value.list() && !key.equals("store")) {
            return "expected one value, found a list";
        }
        return switch (key) {
            case "credentials" -> credentialsProblem(value.text());
            case "connections" -> intProblem(value.text(), 1, Integer.MAX_VALUE);
            case "embedded-capacity" -> sizeProblem(value.text());
            default -> value.text().isBlank() ? "needs HOST:PORT, or a list of them" : null;
        };
    }

    private static String checkFlag(CommandLine root, String verb, String key, ConfigValue value) {
        CommandSpec spec = root.getSubcommands().get(verb).getCommandSpec();
        OptionSpec option = Sections.NOT_SETTINGS.contains(key) ? null : spec.findOption("--" + key);
        if (Sections.SECRETS.containsKey(key)) {
            return "a secret does not belong in a configuration file; give it in $" + Sections.SECRETS.get(key);
        }
        if (option == null || !key.equals(Sections.keyOf(option))) {
            List<String> keys = spec.options().stream().map(Sections::keyOf)
                    .filter(k -> k != null && !Sections.NOT_SETTINGS.contains(k) && !Sections.SECRETS.containsKey(k)).sorted().toList();
            return "unknown setting" + Suggestions.closest(key, keys) + "; '" + spec.name() + "' takes " + String.join(", ", keys);
        }
        if (value.list() && option.splitRegex().isEmpty() && !option.isMultiValue() && !acceptsCommas(key)) {
            return "expected one value, found a list";
        }
        String text = value.text();
        if (option.arity().max() == 0) {
            if (!text.equals("true") && !text.equals("false")) {
                return "expected true or false, found '" + text + "'";
            }
            return null;
        }
        try {
            // Through the root: a subcommand parsed alone has no parent to inherit --config from.
            root.parseArgs(verb, "--" + key, text);
        } catch (CommandLine.MissingParameterException e) {
            // Other required flags are missing from this one-flag parse; the value itself was taken.
        } catch (CommandLine.ParameterException e) {
            return e.getMessage().replaceFirst("^Invalid value for option '--[^']+': ", "");
        }
        if (key.equals("port") || key.endsWith("-port")) {
            return intProblem(text, 0, 65_535);
        }
        if ("SIZE".equals(option.paramLabel())) {
            return sizeProblem(text);
        }
        if (key.equals("credentials")) {
            return credentialsProblem(text);
        }
        if (key.equals("tokens") && !Files.isRegularFile(Path.of(text))) {
            return "no such file: " + text;
        }
        return null;
    }

    /** Flags that take several values in one, comma-separated: lists of masters and etcd members. */
    private static boolean acceptsCommas(String key) {
        return key.equals("store") || key.equals("master") || key.equals("etcd");
    }

    private static String intProblem(String text, int min, int max) {
        try {
            int n = Integer.parseInt(text);
            return n < min || n > max ? "must be from " + min + " to " + max + ", found " + n : null;
        } catch (NumberFormatException e) {
            return "expected a whole number, found '" + text + "'";
        }
    }

    private static String sizeProblem(String text) {
        try {
            ByteSizes.parse(text);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** A credentials directory must hold the CA's certificate, and an identity (certificate and key) or a token. */
    private static String credentialsProblem(String text) {
        if (text.isBlank()) {
            // Path.of("") is the working directory, whose lack of ca.crt would be a puzzling answer.
            return "empty: name a credentials directory, or leave the key out";
        }
        Path dir = Path.of(text);
        if (!Files.isDirectory(dir)) {
            return "no such credentials directory: " + dir;
        }
        if (!Files.isRegularFile(dir.resolve(Credentials.CA_CERT_FILE))) {
            return "credentials directory " + dir + " has no " + Credentials.CA_CERT_FILE;
        }
        boolean identity = Files.isRegularFile(dir.resolve(Credentials.CERT_FILE)) && Files.isRegularFile(dir.resolve(Credentials.KEY_FILE));
        if (!identity && !Files.isRegularFile(dir.resolve(Authentication.TOKEN_FILE))) {
            return "credentials directory " + dir + " has neither " + Credentials.CERT_FILE + " and " + Credentials.KEY_FILE
                    + " nor a token";
        }
        return null;
    }
}
