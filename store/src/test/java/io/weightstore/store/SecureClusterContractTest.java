package io.weightstore.store;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract against a secure cluster: mutual TLS to the master, certificates for every process,
 * and nodes that serve only callers with the master's tickets. Whatever the contract does must work
 * the same once security is on.
 */
class SecureClusterContractTest extends StoreClientContract {
    private TestCluster cluster;
    private StoreClient store;

    @BeforeEach
    void start() throws StoreException {
        cluster = TestCluster.secure(tmp.resolve("cluster"), 3);
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
