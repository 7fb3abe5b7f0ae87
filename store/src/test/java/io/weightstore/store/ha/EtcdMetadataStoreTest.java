package io.weightstore.store.ha;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.weightstore.store.EtcdCluster;
import io.weightstore.store.master.MetadataStore;
import io.weightstore.store.master.MetadataStoreContract;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The metadata contract on etcd, as a group of masters keeps it: each test in a cluster of its own, under a leader key it holds. */
class EtcdMetadataStoreTest extends MetadataStoreContract {
    private static EtcdCluster etcd;
    private static Client client;
    private ClusterKeys keys;
    private Fence fence;

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(1);
        client = Client.builder().endpoints(etcd.endpoints()).build();
    }

    @AfterAll
    static void stopEtcd() {
        client.close();
        etcd.close();
    }

    @Override
    protected MetadataStore open() throws Exception {
        keys = new ClusterKeys("contract-" + UUID.randomUUID());
        var won = client.getKVClient().txn().If(new Cmp(keys.leader(), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(keys.leader(), Etcd.bytes("test"), PutOption.DEFAULT)).commit().get();
        fence = new Fence(won.getHeader().getRevision(), "test");
        return reopen();
    }

    @Override
    protected MetadataStore reopen() throws Exception {
        return EtcdMetadataStore.open(client.getKVClient(), keys, fence, Duration.ofSeconds(5), () -> {});
    }
}
