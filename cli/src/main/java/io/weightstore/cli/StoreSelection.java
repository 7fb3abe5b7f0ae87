package io.weightstore.cli;

import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.StoreLocator;
import io.weightstore.weights.loader.LoadOptions;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The store options every verb that touches a store takes; the choice itself is {@link StoreLocator}'s. */
final class StoreSelection {
    @Option(names = "--store", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Master of the cluster to use, or every master of a group (calls follow its leader). Default: "
                    + "$WEIGHTSTORE_MASTER, else 'store' in the config file (the verb's section, then client), else the embedded "
                    + "store in $WEIGHTSTORE_HOME/store.")
    String store;

    @Option(names = "--credentials", paramLabel = "DIR",
            description = "Credentials for the cluster (ca.crt and a certificate, or ca.crt and a token file; see weightstore cert). "
                    + "Default: $WEIGHTSTORE_CREDENTIALS, else 'credentials' in the config file; without any, plaintext, which "
                    + "only a cluster started with --insecure accepts. The embedded store needs none.")
    Path credentials;

    @Option(names = "--connections", paramLabel = "N", defaultValue = "4",
            description = "Parallel transfers to and from the nodes. Default: ${DEFAULT-VALUE} (or 'connections' in the config file).")
    int connections;

    String describe() throws IOException {
        return StoreLocator.describe(store);
    }

    StoreClient open() throws IOException {
        return StoreLocator.open(store, credentials, connections);
    }

    /** How to load from this selection. */
    LoadOptions loadOptions() {
        return LoadOptions.defaults().withStore(store).withCredentials(credentials).withConnections(connections);
    }
}
