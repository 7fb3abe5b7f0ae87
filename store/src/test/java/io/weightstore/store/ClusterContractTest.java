package io.weightstore.store;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The contract against a real cluster of one master and three nodes on loopback, through their sockets. */
class ClusterContractTest extends StoreClientContract {
    private TestCluster cluster;
    private StoreClient store;

    @BeforeEach
    void start() throws StoreException {
        cluster = startCluster(tmp.resolve("cluster"));
        store = cluster.client();
    }

    /** The cluster the contract runs against; subclasses change its security. */
    TestCluster startCluster(Path dir) throws StoreException {
        return new TestCluster(dir, 3);
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
