package io.weightstore.cli.config;

import io.weightstore.store.security.Credentials;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.config.ConfigFile;
import io.weightstore.weights.config.ConfigValue;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Feeds every flag's default from the environment and the configuration file, so that no option is
 * defined twice: a flag given wins, then its environment variable, then the verb's section of the
 * file, then (for the store selection) the client section, then the default in the code.
 */
public final class ConfigDefaults implements IDefaultValueProvider {
    /** Environment variables that stand for a flag, by "verb.key", or "*.key" for every verb that has the flag. */
    private static final Map<String, String> ENVIRONMENT = Map.of(
            "*.store", StoreLocator.MASTER_ENV,
            "node.master", StoreLocator.MASTER_ENV,
            "*.credentials", Credentials.ENVIRONMENT,
            "gateway.access-key", "WEIGHTSTORE_GATEWAY_ACCESS_KEY",
            "*.log-format", "WEIGHTSTORE_LOG_FORMAT");

    private final Optional<ConfigFile> file;

    public ConfigDefaults(Optional<ConfigFile> file) {
        this.file = file;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || Sections.keyOf(option) == null) {
            return null;
        }
        String verb = Sections.verbOf(option);
        String key = Sections.keyOf(option);
        String variable = ENVIRONMENT.getOrDefault(verb + "." + key, ENVIRONMENT.get("*." + key));
        if (variable != null) {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        if (file.isEmpty() || Sections.SECRETS.containsKey(key) || Sections.NOT_SETTINGS.contains(key)) {
            return null;
        }
        Optional<ConfigValue> value = Sections.VERBS.contains(verb) ? file.get().value(verb, key) : Optional.empty();
        if (value.isEmpty() && verb.equals("node") && key.equals("master")) {
            value = file.get().value(ConfigFile.CLIENT, "store");
        }
        if (value.isEmpty() && !verb.equals("master") && !verb.equals("node") && Sections.SELECTION.contains(key)) {
            value = file.get().value(ConfigFile.CLIENT, key);
        }
        return value.map(ConfigValue::text).orElse(null);
    }
}
