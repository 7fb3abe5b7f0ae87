package io.weightstore.weights;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Credentials;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * Which store to use, the same way for the CLI and for engines: an explicit master, else
 * {@code $WEIGHTSTORE_MASTER}, else {@code master} in the properties file named by
 * {@code $WEIGHTSTORE_CONFIG}, else the embedded store in {@code $WEIGHTSTORE_HOME/store}. A cluster
 * is reached with the credentials directory given explicitly, else {@code $WEIGHTSTORE_CREDENTIALS},
 * else the config file's {@code credentials}; with none, in plaintext, which only a cluster started
 * with {@code --insecure} accepts.
 */
public final class StoreLocator {
    public static final String MASTER_ENV = "WEIGHTSTORE_MASTER";
    public static final String CONFIG_ENV = "WEIGHTSTORE_CONFIG";
    public static final String EMBEDDED_CAPACITY_ENV = "WEIGHTSTORE_EMBEDDED_CAPACITY";

    private StoreLocator() {}

    /**
     * Opens the selected store; {@code explicitMaster} (HOST:PORT, or a group's HOST:PORT,HOST:PORT,...)
     * and {@code explicitCredentials} win when not null.
     */
    public static StoreClient open(String explicitMaster, Path explicitCredentials, int connections) throws IOException {
        Properties config = config();
        ClientOptions options = ClientOptions.defaults().withConnections(connections);
        String master = master(explicitMaster, config);
        if (master != null) {
            return StoreClient.connect(master, options.withAuthentication(authentication(explicitCredentials, config)));
        }
        String capacity = firstNonBlank(System.getenv(EMBEDDED_CAPACITY_ENV), config.getProperty("embedded.capacity"));
        WeightstoreHome.created();
        return EmbeddedStore.open(embeddedDir(), capacity == null ? EmbeddedStore.DEFAULT_CAPACITY : ByteSizes.parse(capacity), options);
    }

    /**
     * The cluster's master as the selection names it ({@code explicitMaster}, else
     * {@code $WEIGHTSTORE_MASTER}, else {@code master} in the config file), or empty when the
     * selection is the embedded store.
     */
    public static Optional<String> clusterMaster(String explicitMaster) throws IOException {
        return Optional.ofNullable(master(explicitMaster, config()));
    }

    /** Where the selection points, for messages. */
    public static String describe(String explicitMaster) throws IOException {
        String master = master(explicitMaster, config());
        return master == null ? "embedded store " + embeddedDir() : "cluster at " + master;
    }

    public static Path embeddedDir() {
        return WeightstoreHome.resolve().resolve("store");
    }

    private static Authentication authentication(Path explicit, Properties config) throws StoreException {
        String dir = firstNonBlank(explicit == null ? null : explicit.toString(), System.getenv(Credentials.ENVIRONMENT),
                config.getProperty("credentials"));
        return dir == null ? Authentication.insecure() : Authentication.load(Path.of(dir));
    }

    private static String master(String explicit, Properties config) {
        return firstNonBlank(explicit, System.getenv(MASTER_ENV), config.getProperty("master"));
    }

    private static Properties config() throws IOException {
        Properties properties = new Properties();
        String file = System.getenv(CONFIG_ENV);
        if (file != null && !file.isBlank()) {
            Path path = Path.of(file);
            if (!Files.isRegularFile(path)) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, CONFIG_ENV + " names " + path + ", which is not a file");
            }
            try (Reader reader = Files.newBufferedReader(path)) {
                properties.load(reader);
            }
        }
        return properties;
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
