package io.weightstore.weights;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Which store to use, the same way for the CLI and for engines: an explicit master, else
 * {@code $WEIGHTSTORE_MASTER}, else {@code master} in the properties file named by
 * {@code $WEIGHTSTORE_CONFIG}, else the embedded store in {@code $WEIGHTSTORE_HOME/store}. The token
 * comes from {@code $WEIGHTSTORE_TOKEN} or the config file's {@code token}.
 */
public final class StoreLocator {
    public static final String MASTER_ENV = "WEIGHTSTORE_MASTER";
    public static final String CONFIG_ENV = "WEIGHTSTORE_CONFIG";
    public static final String TOKEN_ENV = "WEIGHTSTORE_TOKEN";
    public static final String EMBEDDED_CAPACITY_ENV = "WEIGHTSTORE_EMBEDDED_CAPACITY";

    private StoreLocator() {}

    /** Opens the selected store; {@code explicitMaster} (HOST:PORT, or a group's HOST:PORT,HOST:PORT,...) wins when not null. */
    public static StoreClient open(String explicitMaster, int connections) throws IOException {
        Properties config = config();
        String token = firstNonBlank(System.getenv(TOKEN_ENV), config.getProperty("token"));
        ClientOptions options = ClientOptions.defaults().withConnections(connections).withToken(token == null ? "" : token);
        String master = master(explicitMaster, config);
        if (master != null) {
            return StoreClient.connect(master, options);
        }
        String capacity = firstNonBlank(System.getenv(EMBEDDED_CAPACITY_ENV), config.getProperty("embedded.capacity"));
        return EmbeddedStore.open(embeddedDir(), capacity == null ? EmbeddedStore.DEFAULT_CAPACITY : ByteSizes.parse(capacity), options);
    }

    /** Where the selection points, for messages. */
    public static String describe(String explicitMaster) throws IOException {
        String master = master(explicitMaster, config());
        return master == null ? "embedded store " + embeddedDir() : "cluster at " + master;
    }

    public static Path embeddedDir() {
        return WeightstoreHome.resolve().resolve("store");
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
