package io.weightstore.weights;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import io.weightstore.weights.config.ConfigException;
import io.weightstore.weights.config.ConfigFile;
import io.weightstore.weights.config.ConfigValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which store to use, the same way for the CLI and for engines: an explicit master, else
 * {@code $WEIGHTSTORE_MASTER}, else {@code store} in the {@code client} section of the
 * configuration file ({@link ConfigFile}: {@code --config FILE} or {@code $WEIGHTSTORE_CONFIG}),
 * else the embedded store in {@code $WEIGHTSTORE_HOME/store}. A cluster is reached with the
 * credentials directory given explicitly, else {@code $WEIGHTSTORE_CREDENTIALS}, else the client
 * section's {@code credentials}; with none, in plaintext, which only a cluster started with
 * {@code --insecure} accepts.
 */
public final class StoreLocator {
    public static final String MASTER_ENV = "WEIGHTSTORE_MASTER";
    public static final String CONFIG_ENV = ConfigFile.ENV;
    public static final String EMBEDDED_CAPACITY_ENV = "WEIGHTSTORE_EMBEDDED_CAPACITY";
    /** What the client section may hold: the store selection of every command, and the embedded store's size. */
    public static final Set<String> CLIENT_KEYS = Set.of("store", "credentials", "connections", "embedded-capacity");

    private StoreLocator() {}

    /**
     * Opens the selected store; {@code explicitMaster} (HOST:PORT, or a group's HOST:PORT,HOST:PORT,...)
     * and {@code explicitCredentials} win when not null.
     */
    public static StoreClient open(String explicitMaster, Path explicitCredentials, int connections) throws IOException {
        Map<String, String> config = config();
        ClientOptions options = ClientOptions.defaults().withConnections(connections);
        String master = master(explicitMaster, config);
        if (master != null) {
            return StoreClient.connect(master, options.withAuthentication(authentication(explicitCredentials, config)));
        }
        String capacity = firstNonBlank(System.getenv(EMBEDDED_CAPACITY_ENV), config.get("embedded-capacity"));
        WeightstoreHome.created();
        return EmbeddedStore.open(embeddedDir(), capacity == null ? EmbeddedStore.DEFAULT_CAPACITY : ByteSizes.parse(capacity), options);
    }

    /**
     * The cluster's master as the selection names it ({@code explicitMaster}, else
     * {@code $WEIGHTSTORE_MASTER}, else the config file's {@code client.store}), or empty when the
     * selection is the embedded store.
     */
    public static Optional<String> clusterMaster(String explicitMaster) throws StoreException {
        return Optional.ofNullable(master(explicitMaster, config()));
    }

    /** Where the selection points, for messages. */
    public static String describe(String explicitMaster) throws StoreException {
        String master = master(explicitMaster, config());
        return master == null ? "embedded store " + embeddedDir() : "cluster at " + master;
    }

    public static Path embeddedDir() {
        return WeightstoreHome.resolve().resolve("store");
    }

    private static Authentication authentication(Path explicit, Map<String, String> config) throws StoreException {
        String dir = firstNonBlank(explicit == null ? null : explicit.toString(), System.getenv(Credentials.ENVIRONMENT),
                config.get("credentials"));
        return dir == null ? Authentication.insecure() : Authentication.load(Path.of(dir));
    }

    private static String master(String explicit, Map<String, String> config) {
        return firstNonBlank(explicit, System.getenv(MASTER_ENV), config.get("store"));
    }

    /**
     * The configuration file's client section, as text. An engine has no command line to check the
     * file, so an unknown key here is an error too, not a setting silently ignored.
     */
    private static Map<String, String> config() throws StoreException {
        Optional<ConfigFile> file;
        try {
            file = ConfigFile.current();
        } catch (ConfigException e) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, e.getMessage());
        }
        if (file.isEmpty()) {
            return Map.of();
        }
        Map<String, ConfigValue> client = Optional.ofNullable(file.get().sections().get(ConfigFile.CLIENT))
                .map(ConfigFile.Section::values).orElse(Map.of());
        for (Map.Entry<String, ConfigValue> entry : client.entrySet()) {
            if (!CLIENT_KEYS.contains(entry.getKey())) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "config " + file.get().path() + ": line "
                        + entry.getValue().line() + ", column " + entry.getValue().column() + ": client." + entry.getKey()
                        + ": unknown setting; the client section takes " + String.join(", ", CLIENT_KEYS.stream().sorted().toList()));
            }
        }
        return client.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().text()));
    }

    private static String firstNonBlank(String... values) {
        for (String value : values) {
            if (value != null && !value.isBlank()) {
                return value.strip();
            }
        }
        return null;
    }
}
