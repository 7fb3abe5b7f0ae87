package io.weightstore.store;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.node.DataPlaneProtection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The contract on a secure cluster whose nodes leave TLS for authenticated chunks in clear after each hello. */
class SecureMacClusterContractTest extends StoreClientContract {
    private TestCluster cluster;
    private StoreClient store;

    @BeforeEach
    void start() throws StoreException {
        cluster = TestCluster.secure(tmp.resolve("cluster"), 3, DataPlaneProtection.MAC);
        store = cluster.client();
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
        return cluster.client();
    }

    @Override
    PutOptions put() {
        return super.put().withReplicas(2);
    }
}
