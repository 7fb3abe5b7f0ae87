package io.weightstore.store;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract against a group of three masters on etcd and three nodes, through a client given
 * the list of masters: a group must behave as one master does. Each test gets a cluster of its own
 * on one shared etcd.
 */
class MasterGroupContractTest extends StoreClientContract {
    private static EtcdCluster etcd;
    private MasterGroupCluster group;
    private StoreClient store;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(3);
    }

    @AfterAll
    static void stopEtcd() {
        etcd.close();
    }

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(tmp.resolve("group"));
        group = new MasterGroupCluster(tmp.resolve("group"), etcd, "contract-" + UUID.randomUUID(), 3, 3, false);
        group.awaitLeader(-1, Duration.ofSeconds(60));
        store = group.client();
    }

    @AfterEach
    void stop() {
        group.close();
    }

    @Override
    StoreClient store() {
        return store;
    }

    @Override
    StoreClient otherClient() throws StoreException {
        return group.client();
    }

    @Override
    PutOptions put() {
        return super.put().withReplicas(2);
    }
}
