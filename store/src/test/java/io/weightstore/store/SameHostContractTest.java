package io.weightstore.store;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The contract against a loopback cluster read through the same-host path: pool files mapped, no sockets for bytes. */
class SameHostContractTest extends StoreClientContract {
    private TestCluster cluster;
    private StoreClient store;

    @BeforeEach
    void start() throws StoreException {
        cluster = new TestCluster(tmp.resolve("cluster"), 3);
        store = cluster.client(ClientOptions.defaults().withSameHostPath(true));
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
    }

    @Override
    StoreClient store() {
        return store;
    }

    @Override
    StoreClient otherClient() throws StoreException {
        return cluster.client(ClientOptions.defaults().withSameHostPath(true));
    }
}
