package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.master.MetadataBatch;
import io.weightstore.store.master.MetadataStore;
import io.weightstore.store.master.MetadataStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The metadata contract on etcd, as a group of masters keeps it: each test in a cluster of its own, under a leader key it holds. */
class EtcdMetadataStoreTest extends MetadataStoreContract {
    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(1);

    private ClusterKeys keys;
    private Fence fence;

    @Override
    protected MetadataStore open() throws Exception {
        keys = new ClusterKeys("contract-" + UUID.randomUUID());
        fence = lead(ETCD.client(), keys);
        return reopen();
    }

    /** Takes the leader key of {@code keys}' cluster, as an elected master does, and returns its fence. */
    static Fence lead(Client client, ClusterKeys keys) throws Exception {
        var won = client.getKVClient().txn().If(new Cmp(keys.leader(), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(keys.leader(), Etcd.bytes("test"), PutOption.DEFAULT)).commit().get();
        return new Fence(won.getHeader().getRevision(), "test");
    }

    @Override
    protected MetadataStore reopen() throws Exception {
        return EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fence, Duration.ofSeconds(5), () -> {});
    }

    @Test
    void aCatalogOfManyPagesLoadsWholeAndInKeyOrder() throws Exception {
        List<ObjectMeta> written = new ArrayList<>();
        for (int i = 0; i < 2 * MetadataRecords.PAGE + 1; i++) {
            SliceMeta slice = new SliceMeta(0, 4096, List.of(new ReplicaRef("n1", 4096L * i)), BlockCrcs.of(new int[] {i}));
            written.add(new ObjectMeta(String.format("paged/%05d", i), 4096, 1 << 20, 4096, List.of(slice), true, Instant.ofEpochMilli(i),
                    1));
        }
        assertLoadsAsWritten(written);
    }

    @Test
    void aPageOfRecordsLargerThanAGrpcMessageLoadsInSmallerPages() throws Exception {
        // 300 objects of 5 GiB, a CRC32C per MiB: 20 KiB a record, 6 MiB for a page of them, over gRPC's 4 MiB a message.
        int[] crcs = new int[5 * 1024];
        List<ObjectMeta> written = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            SliceMeta slice = new SliceMeta(0, 5L << 30, List.of(new ReplicaRef("n1", (5L << 30) * i)), BlockCrcs.of(crcs));
            written.add(new ObjectMeta(String.format("large/%03d", i), 5L << 30, 64 << 20, 1 << 20, List.of(slice), true, Instant.EPOCH,
                    1));
        }
        assertLoadsAsWritten(written);
    }

    /** Writes {@code written} (in as many transactions as etcd needs), and loads them back as a new master would. */
    private void assertLoadsAsWritten(List<ObjectMeta> written) throws Exception {
        MetadataBatch batch = new MetadataBatch();
        written.forEach(batch::putObject);
        try (MetadataStore writer = reopen()) {
            writer.applyInParts(batch);
        }
        try (MetadataStore loaded = reopen()) {
            assertThat(loaded.objects("", "", Integer.MAX_VALUE)).isEqualTo(written);
        }
    }
}
