package io.weightstore.weights;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

class EmbeddedCatalogTest extends CatalogContract {
    private StoreClient store;

    @BeforeEach
    void open() throws StoreException {
        store = EmbeddedStore.open(tmp.resolve("home"), 256L << 20, ClientOptions.defaults());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Override
    StoreClient store() {
        return store;
    }
}
