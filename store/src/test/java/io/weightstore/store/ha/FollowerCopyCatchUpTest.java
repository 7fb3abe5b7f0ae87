package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.grpc.Protos;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A copy handed to a new leader holds every record written before its fence, however fast they came:
 * etcd 3.4 answers a watch's progress request ahead of changes it has not sent yet, and a copy that took
 * that answer for "caught up" gave a new leader 11,100 of 20,000 records written just before it.
 */
class FollowerCopyCatchUpTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(1);

    @Test
    void aCopyTakenRightAfterABurstOfWritesHoldsThemAll() throws Exception {
        Client client = ETCD.client();
        for (int round = 0; round < 5; round++) {
            ClusterKeys keys = new ClusterKeys("catch-up-" + UUID.randomUUID());
            try (FollowerCopy copy = FollowerCopy.start(client, keys, TIMEOUT, FollowerCopy.RELOAD_PAUSE)) {
                assertThat(copy.current(EtcdMetadataStoreTest.lead(client, keys))).isPresent();
                List<CompletableFuture<?>> writes = new ArrayList<>();
                for (int txn = 0; txn < 200; txn++) {
                    Op[] puts = new Op[100];
                    for (int i = 0; i < puts.length; i++) {
                        String key = String.format("burst/%03d/%03d", txn, i);
                        byte[] record = Protos.encode(object(key));
                        puts[i] = Op.put(keys.record(ClusterKeys.OBJECT, key), ByteSequence.from(record), PutOption.DEFAULT);
                    }
                    writes.add(client.getKVClient().txn().Then(puts).commit());
                }
                CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get();
                // The old leader's last writes are in; it goes, and the new one takes its fence, then the copy.
                client.getKVClient().delete(keys.leader()).get();
                Optional<MetadataRecords> taken = copy.current(EtcdMetadataStoreTest.lead(client, keys));
                assertThat(taken).isPresent();
                assertThat(taken.get().objects().size()).as("records in the copy, round %d", round).isEqualTo(200 * 100);
            }
        }
    }

    private static ObjectMeta object(String key) {
        SliceMeta slice = new SliceMeta(0, 4096, List.of(new ReplicaRef("n1", 4096)), BlockCrcs.of(new int[] {7, 8}));
        return new ObjectMeta(key, 4096, 1 << 20, 64 << 10, List.of(slice), true, Instant.ofEpochMilli(1234), 1);
    }
}
