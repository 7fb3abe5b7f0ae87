package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract against a group of three masters on etcd and three nodes, through a client given
 * the list of masters: a group must behave as one master does. Each test gets a cluster of its own
 * on one shared etcd.
 */
class MasterGroupContractTest extends StoreClientContract {
    private static final int NODES = 3;

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(3);

    private MasterGroupCluster group;
    private StoreClient store;

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(tmp.resolve("group"));
        group = new MasterGroupCluster(tmp.resolve("group"), ETCD.cluster(), "contract-" + UUID.randomUUID(), 3, NODES, false);
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

    @Test
    void aReplicaCountBeyondTheNodesIsRefusedAtOnceWithTheLeadersReason() throws Exception {
        store.put("beyond/a", new byte[1000], put());

        long started = System.nanoTime();
        assertThatThrownBy(() -> store.setReplicas(List.of("beyond/a"), NODES + 1, false))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> {
                    assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
                    assertThat(e.getMessage()).contains((NODES + 1) + " replicas need " + (NODES + 1) + " nodes")
                            .doesNotContain("answered as leader");
                });
        // Far inside the 30 s a call may spend looking for a leader: the group must not have looked for one.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
        assertThat(store.stat("beyond/a").replicas()).isEqualTo(2);
    }

    @Test
    void aPutAskingMoreReplicasThanNodesUpFailsWithTheLeadersReasonNotAnUnknownOutcome() {
        assertThatThrownBy(() -> store.put("beyond/b", new byte[1000], put().withReplicas(NODES + 1)))
                .asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> {
                    assertThat(e.code()).isEqualTo(StoreException.Code.UNAVAILABLE);
                    assertThat(e.getMessage()).contains("put of beyond/b needs " + (NODES + 1) + " nodes up")
                            .doesNotContain("unknown");
                });
    }
}
