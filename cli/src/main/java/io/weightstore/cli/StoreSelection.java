package io.weightstore.cli;

import io.weightstore.store.ClientOptions;
import io.weightstore.store.StoreClient;
import io.weightstore.store.StoreException;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * Which store a verb talks to: {@code --store HOST:PORT}, else {@code $WEIGHTSTORE_MASTER}, else the
 * {@code master} property of the config file named by {@code $WEIGHTSTORE_CONFIG}, else the embedded
 * store in {@code $WEIGHTSTORE_HOME/store}. The token comes from {@code $WEIGHTSTORE_TOKEN} or the
 * config file's {@code token}, never from the command line where other users could read it.
 */
final class StoreSelection {
    static final String MASTER_ENV = "WEIGHTSTORE_MASTER";
    static final String CONFIG_ENV = "WEIGHTSTORE_CONFIG";
    static final String TOKEN_ENV = "WEIGHTSTORE_TOKEN";
    static final String EMBEDDED_CAPACITY_ENV = "WEIGHTSTORE_EMBEDDED_CAPACITY";

    @Option(names = "--store", paramLabel = "HOST:PORT",
            description = "Master of the cluster to use. Default: $WEIGHTSTORE_MASTER, else 'master' in the file named by "
                    + "$WEIGHTSTORE_CONFIG, else the embedded store in $WEIGHTSTORE_HOME/store.")
    String store;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "4",
            description = "Parallel transfers to and from the nodes. Default: ${DEFAULT-VALUE}.")
    int connections;

    /** Where the selection points, for messages and --json. */
    String describe() throws IOException {
        String master = master();
        return master == null ? "embedded store " + embeddedDir() : "cluster at " + master;
    }

    StoreClient open() throws IOException {
        Properties config = config();
        String token = firstNonBlank(System.getenv(TOKEN_ENV), config.getProperty("token"));
        ClientOptions options = ClientOptions.defaults().withConnections(connections).withToken(token == null ? "" : token);
        String master = master();
        if (master != null) {
            return StoreClient.connect(master, options);
        }
        String capacity = firstNonBlank(System.getenv(EMBEDDED_CAPACITY_ENV), config.getProperty("embedded.capacity"));
        return EmbeddedStore.open(embeddedDir(), capacity == null ? EmbeddedStore.DEFAULT_CAPACITY : ByteSizes.parse(capacity),
                options);
    }

    private String master() throws IOException {
        return firstNonBlank(store, System.getenv(MASTER_ENV), config().getProperty("master"));
    }

    static Path embeddedDir() {
        return WeightstoreHome.resolve().resolve("store");
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
