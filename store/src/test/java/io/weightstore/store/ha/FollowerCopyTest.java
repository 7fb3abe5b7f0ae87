package io.weightstore.store.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.weightstore.store.EtcdForClass;
import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.master.MetadataBatch;
import io.weightstore.store.master.MetadataStore;
import io.weightstore.store.master.MetadataStoreContract;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The metadata contract through a follower's copy: every reopen is a take-over (the leader key goes
 * and is created again) from a copy kept by watching etcd since the cluster was empty, so each
 * contract test that reopens checks that the watch brought every change in.
 */
class FollowerCopyTest extends MetadataStoreContract {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration RELOAD_PAUSE = Duration.ofMillis(200);

    @RegisterExtension
    static final EtcdForClass ETCD = new EtcdForClass(1);

    private ClusterKeys keys;
    private Fence fence;
    private FollowerCopy copy;

    @Override
    protected MetadataStore open() throws Exception {
        keys = new ClusterKeys("follower-" + UUID.randomUUID());
        fence = EtcdMetadataStoreTest.lead(ETCD.client(), keys);
        copy = FollowerCopy.start(ETCD.client(), keys, TIMEOUT, RELOAD_PAUSE);
        return reopen();
    }

    @Override
    protected MetadataStore reopen() throws Exception {
        MetadataRecords records = takeOver().orElseThrow();
        return EtcdMetadataStore.over(ETCD.client().getKVClient(), keys, fence, TIMEOUT, () -> {}, records);
    }

    /** The leader goes and a new one is elected, which takes the copy as of its fence. */
    private Optional<MetadataRecords> takeOver() throws Exception {
        ETCD.client().getKVClient().delete(keys.leader()).get();
        fence = EtcdMetadataStoreTest.lead(ETCD.client(), keys);
        return copy.current(fence);
    }

    @AfterEach
    void closeCopy() {
        copy.close();
    }

    private MetadataStore load() throws Exception {
        return EtcdMetadataStore.open(ETCD.client().getKVClient(), keys, fence, TIMEOUT, () -> {});
    }

    @Test
    void aCopyHoldsWhatALoadReadsAfterPutsOverwritesAndDeletesOfEveryKind() throws Exception {
        try (MetadataStore writer = load()) {
            writer.apply(new MetadataBatch().putObject(object("a", 1)).putObject(object("b", 2)).putNode(node("n1"), false)
                    .putNode(node("n2"), false).putPending(new PutGrant("p1", object("c", 3), Map.of("n1", node("n1")), Instant.EPOCH, "w"))
                    .putPending(new PutGrant("p2", object("d", 4), Map.of(), Instant.EPOCH, "w"))
                    .putLock("l1", new LockState(true, "o", Instant.EPOCH)).putLock("l2", new LockState(true, "o", Instant.EPOCH))
                    .putLease(new ReadLease("a", 0xfedcba9876543210L, Instant.EPOCH, "r")).putLease(new ReadLease("b", 2, Instant.EPOCH, "r"))
                    .putRetired(new RetiredRange("a", 1, new ReplicaRef("n1", 0), 1))
                    .putRetired(new RetiredRange("a", 1, new ReplicaRef("n1", 4096), 1))
                    .putBadCopy(new BadCopy("a", Instant.EPOCH, 0, new ReplicaRef("n1", 0)))
                    .putBadCopy(new BadCopy("b", Instant.EPOCH, 0, new ReplicaRef("n2", 0)))
                    .putReadTime(new ReadTime("a", Instant.EPOCH)).putReadTime(new ReadTime("b", Instant.EPOCH)));
            writer.apply(new MetadataBatch().deleteObject("a").putObject(object("b", 20)).deleteNode("n1").putNode(node("n2"), true)
                    .deletePending("p1").deleteLock("l1").deleteLease(0xfedcba9876543210L).deleteRetired(new ReplicaRef("n1", 0))
                    .deleteBadCopy("a", 0, "n1").deleteReadTime("a"));
        }
        try (MetadataStore fromCopy = reopen(); MetadataStore loaded = load()) {
            assertThat(loaded.objects("", "", 10)).extracting(ObjectMeta::size).containsExactly(20L);
            assertThat(fromCopy.objects("", "", 10)).isEqualTo(loaded.objects("", "", 10));
            assertThat(fromCopy.nodes()).isEqualTo(loaded.nodes()).hasSize(1);
            assertThat(fromCopy.pendingPuts()).isEqualTo(loaded.pendingPuts()).hasSize(1);
            assertThat(fromCopy.lock("l1")).isEqualTo(loaded.lock("l1")).isEmpty();
            assertThat(fromCopy.lock("l2")).isEqualTo(loaded.lock("l2")).isPresent();
            assertThat(fromCopy.leases()).isEqualTo(loaded.leases()).extracting(ReadLease::leaseId).containsExactly(2L);
            assertThat(fromCopy.retiredRanges()).isEqualTo(loaded.retiredRanges()).hasSize(1);
            assertThat(fromCopy.badCopies()).isEqualTo(loaded.badCopies()).extracting(BadCopy::key).containsExactly("b");
            assertThat(fromCopy.readTimes()).isEqualTo(loaded.readTimes()).extracting(ReadTime::key).containsExactly("b");
        }
    }

    @Test
    void aRecordTheCopyCannotReadDropsItUntilItLoadsAgainAfterAPause() throws Exception {
        try (MetadataStore writer = load()) {
            writer.apply(new MetadataBatch().putObject(object("a", 1)));
        }
        assertThat(takeOver()).isPresent();
        ByteSequence unreadable = Etcd.bytes(keys.meta() + "zz/unknown");
        ETCD.client().getKVClient().put(unreadable, ByteSequence.from(new byte[] {1})).get();
        assertThat(takeOver()).isEmpty();
        ETCD.client().getKVClient().delete(unreadable).get();
        try (MetadataStore writer = load()) {
            writer.apply(new MetadataBatch().putObject(object("b", 2)));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Optional<MetadataRecords> again = takeOver();
        while (again.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            again = takeOver();
        }
        assertThat(again).hasValueSatisfying(records -> assertThat(records.objects()).containsOnlyKeys("a", "b"));
    }

    @Test
    void aClosedCopyGivesNothing() throws Exception {
        copy.close();
        assertThat(takeOver()).isEmpty();
    }
}
