package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link MetadataStore} must do the same, RocksDB for a single master and etcd for a
 * group: each implementation runs these through a small subclass.
 */
public abstract class MetadataStoreContract {
    private MetadataStore store;

    /** A fresh, empty store. */
    protected abstract MetadataStore open() throws Exception;

    /** The same records, opened again as a restarted master (or a new leader) would. */
    protected abstract MetadataStore reopen() throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = open();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected static ObjectMeta object(String key, long size) {
        SliceMeta slice = new SliceMeta(0, size, List.of(new ReplicaRef("n1", 4096)), BlockCrcs.of(new int[] {7, 8}));
        return new ObjectMeta(key, size, 1 << 20, 64 << 10, List.of(slice), true, Instant.ofEpochMilli(1234), 1);
    }

    protected static NodeInfo node(String id) {
        return new NodeInfo(id, new Endpoint("host-" + id, 7071), "/dev/shm/" + id, new UUID(1, id.hashCode()), 1L << 30);
    }

    @Test
    void anEmptyStoreHasNoRecords() throws StoreException {
        assertThat(store.object("a")).isEmpty();
        assertThat(store.objects("", "", 10)).isEmpty();
        assertThat(store.nodes()).isEmpty();
        assertThat(store.pendingPuts()).isEmpty();
        assertThat(store.lock("l")).isEmpty();
        assertThat(store.leases()).isEmpty();
        assertThat(store.retiredRanges()).isEmpty();
        assertThat(store.badCopies()).isEmpty();
        assertThat(store.readTimes()).isEmpty();
    }

    @Test
    void changesAppliedInPartsAllLandHoweverManyAndLargeTheyAre() throws Exception {
        // 300 small records, more than an etcd transaction takes, then 60 of some 50 KB each (a file of a few hundred slices
        // with their checksums): 3 MB, more than an etcd request takes.
        MetadataBatch many = new MetadataBatch();
        for (int i = 0; i < 300; i++) {
            many.putObject(object(String.format("many/%03d", i), 1000));
        }
        store.applyInParts(many);
        MetadataBatch large = new MetadataBatch();
        for (int i = 0; i < 60; i++) {
            large.putObject(largeObject(String.format("large/%02d", i)));
        }
        store.applyInParts(large.deleteObject("many/000"));
        store.close();
        store = reopen();
        assertThat(store.objects("many/", "", 1000)).hasSize(299);
        assertThat(store.objects("large/", "", 1000)).hasSize(60).first().isEqualTo(largeObject("large/00"));
    }

    /** An object of 1000 slices of 64 KiB, each with its checksum block and two replicas. */
    private static ObjectMeta largeObject(String key) {
        List<SliceMeta> slices = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            slices.add(new SliceMeta(i * (64L << 10), 64 << 10, List.of(new ReplicaRef("n1", i * (64L << 10)),
                    new ReplicaRef("n2", i * (64L << 10))), BlockCrcs.of(new int[] {i})));
        }
        return new ObjectMeta(key, 1000L * (64 << 10), 64 << 10, 64 << 10, slices, true, Instant.ofEpochMilli(1234), 2);
    }

    @Test
    void everyKindOfRecordReadsBackEqualAfterReopening() throws Exception {
        ObjectMeta object = object("w/x", 1000);
        PutGrant put = new PutGrant("put-1", object("w/y", 10), Map.of("n1", node("n1")), Instant.ofEpochMilli(99), "writer-1",
                "weights/y");
        LockState lock = new LockState(true, "owner-1", Instant.ofEpochMilli(5000), "writer importer");
        ReadLease lease = new ReadLease("w/x", 42, Instant.ofEpochMilli(7000), "reader-1");
        RetiredRange retired = new RetiredRange("w/x", 41, new ReplicaRef("n1", 1L << 33), 1000);
        BadCopy bad = new BadCopy("w/x", Instant.ofEpochMilli(1234), 3, new ReplicaRef("n2", 1L << 34));
        ReadTime read = new ReadTime("w/x", Instant.ofEpochMilli(6000));
        store.apply(new MetadataBatch().putObject(object).putNode(node("n1"), true).putNode(node("n0"), false).putPending(put)
                .putLock("l", lock).putLease(lease).putRetired(retired).putBadCopy(bad).putReadTime(read));
        store.close();
        store = reopen();
        assertThat(store.object("w/x")).contains(object);
        assertThat(store.nodes()).containsExactly(new StoredNode(node("n0"), false), new StoredNode(node("n1"), true));
        assertThat(store.pendingPuts()).containsExactly(put);
        assertThat(store.lock("l")).contains(lock);
        assertThat(store.locks()).containsExactly(Map.entry("l", lock));
        assertThat(store.leases()).containsExactly(lease);
        assertThat(store.retiredRanges()).containsExactly(retired);
        assertThat(store.badCopies()).containsExactly(bad);
        assertThat(store.readTimes()).containsExactly(read);
    }

    @Test
    void deletesTakeRecordsAwayAndABatchAppliesInOrder() throws StoreException {
        store.apply(new MetadataBatch().putObject(object("a", 1)).putPending(new PutGrant("p", object("b", 1), Map.of(),
                Instant.EPOCH, "")).putLock("l", new LockState(true, "o", Instant.EPOCH)).putLease(new ReadLease("a", 1, Instant.EPOCH, ""))
                .putRetired(new RetiredRange("a", 1, new ReplicaRef("n1", 0), 1))
                .putRetired(new RetiredRange("a", 1, new ReplicaRef("n1", 4096), 1))
                .putBadCopy(new BadCopy("a", Instant.EPOCH, 0, new ReplicaRef("n1", 0)))
                .putBadCopy(new BadCopy("a", Instant.EPOCH, 1, new ReplicaRef("n1", 4096)))
                .putReadTime(new ReadTime("a", Instant.EPOCH)).putReadTime(new ReadTime("c", Instant.EPOCH)));
        store.apply(new MetadataBatch().deleteObject("a").deletePending("p").deleteLock("l").deleteLease(1).putObject(object("c", 2))
                .deleteObject("c").putObject(object("c", 3)).deleteRetired(new ReplicaRef("n1", 0)).deleteBadCopy("a", 0, "n1")
                .deleteReadTime("a").putReadTime(new ReadTime("c", Instant.ofEpochMilli(1))));
        assertThat(store.object("a")).isEmpty();
        assertThat(store.pendingPuts()).isEmpty();
        assertThat(store.lock("l")).isEmpty();
        assertThat(store.locks()).isEmpty();
        assertThat(store.leases()).isEmpty();
        assertThat(store.retiredRanges()).containsExactly(new RetiredRange("a", 1, new ReplicaRef("n1", 4096), 1));
        assertThat(store.badCopies()).containsExactly(new BadCopy("a", Instant.EPOCH, 1, new ReplicaRef("n1", 4096)));
        assertThat(store.readTimes()).containsExactly(new ReadTime("c", Instant.ofEpochMilli(1)));
        assertThat(store.object("c")).map(ObjectMeta::size).contains(3L);
    }

    @Test
    void objectsAreListedByPrefixInKeyOrderAPageAtATime() throws StoreException {
        MetadataBatch batch = new MetadataBatch();
        for (String key : List.of("m/b", "m/a", "m/c", "m0", "l/z", "m/\u00e9", "m/\uD83D\uDE00", "m/\uFFFD")) {
            batch.putObject(object(key, 1));
        }
        store.apply(batch);
        // UTF-8 byte order: U+00E9 < U+FFFD < U+1F600.
        assertThat(store.objects("m/", "", 100)).extracting(ObjectMeta::key)
                .containsExactly("m/a", "m/b", "m/c", "m/\u00e9", "m/\uFFFD", "m/\uD83D\uDE00");
        assertThat(store.objects("m/", "", 2)).extracting(ObjectMeta::key).containsExactly("m/a", "m/b");
        assertThat(store.objects("m/", "m/b", 2)).extracting(ObjectMeta::key).containsExactly("m/c", "m/\u00e9");
        assertThat(store.objects("m/", "m/\uD83D\uDE00", 2)).isEmpty();
        assertThat(store.objects("", "", 100)).hasSize(8);
    }

    @Test
    void aStartAfterThatSortsBeforeThePrefixListsThePrefixFromItsFirstKey() throws StoreException {
        MetadataBatch batch = new MetadataBatch();
        for (String key : List.of("a", "l/z", "m/a", "m/b", "m0")) {
            batch.putObject(object(key, 1));
        }
        store.apply(batch);
        for (String startAfter : List.of("a", "l/z", "m")) {
            assertThat(store.objects("m/", startAfter, 100)).as("after " + startAfter).extracting(ObjectMeta::key)
                    .containsExactly("m/a", "m/b");
        }
        assertThat(store.objects("m/", "m0", 100)).as("after the prefix's keys").isEmpty();
    }
}
