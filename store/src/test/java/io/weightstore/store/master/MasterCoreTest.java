package io.weightstore.store.master;

import static io.weightstore.store.api.StoreException.Code.ALREADY_EXISTS;
import static io.weightstore.store.api.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.api.StoreException.Code.INVALID_ARGUMENT;
import static io.weightstore.store.api.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.api.StoreException.Code.NO_SPACE;
import static io.weightstore.store.api.StoreException.Code.PERMISSION_DENIED;
import static io.weightstore.store.api.StoreException.Code.UNAVAILABLE;
import static io.weightstore.store.master.ClockedMasters.NODE;
import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.assertCode;
import static io.weightstore.store.master.ClockedMasters.config;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Caller;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The master's rules, driven through its API with a clock the test moves. */
class MasterCoreTest extends ClockedMasterFixture {
    private static final Duration MINUTE = Duration.ofMinutes(1);

    @BeforeEach
    void registerNodes() throws StoreException {
        for (String id : new String[] {"n1", "n2"}) {
            master.registerNode(node(id, NODE));
        }
    }

    /** A master opened again on the same metadata, its nodes registered again as running nodes do. */
    private void restartWithNodesRegistered() throws StoreException {
        master.close();
        master = open();
        registerNodes();
    }

    /** The master opened again over its metadata as {@code wrap} makes the store, its nodes registered again. */
    private void reopenOver(UnaryOperator<MetadataStore> wrap) throws StoreException {
        master.close();
        master = MasterCore.open(wrap.apply(RocksMetadataStore.open(dir)), config(), now::get);
        registerNodes();
    }

    private PutGrant start(String key, long size, int replicas) throws StoreException {
        return master.putStart(key, size, PutOptions.defaults().withReplicas(replicas));
    }

    private ObjectMeta seal(PutGrant put) throws StoreException {
        List<BlockCrcs> sums = new ArrayList<>();
        put.object().slices().forEach(slice -> sums.add(BlockCrcs.of(new int[(int) Math.ceilDiv(slice.length(), 64 << 10)])));
        return master.putEnd(put.putId(), sums);
    }

    private ObjectMeta put(String key, long size) throws StoreException {
        return seal(start(key, size, 1));
    }

    @Test
    void unsealedObjectIsInvisibleUntilPutEnd() throws StoreException {
        PutGrant put = start("w/a", 3 * SLICE, 2);
        assertThat(put.object().slices()).allSatisfy(s -> assertThat(s.nodeIds()).containsExactlyInAnyOrder("n1", "n2"));
        assertCode(() -> master.stat("w/a"), NOT_FOUND);
        assertThat(master.list("w/", "", 0).objects()).isEmpty();
        assertCode(() -> start("w/a", 10, 1), ALREADY_EXISTS);
        seal(put);
        assertThat(master.stat("w/a").size()).isEqualTo(3 * SLICE);
    }

    @Test
    void abandonedPutIsReclaimedAfterItsDeadline() throws StoreException {
        PutGrant put = start("abandoned", 4 * SLICE, 1);
        assertThat(master.status().pendingPuts()).isEqualTo(1);
        now.addAndGet(config().putTimeout().toMillis() + 1);
        master.reapNow();
        assertThat(master.status().pendingPuts()).isZero();
        assertCode(() -> seal(put), NOT_FOUND);
        // Its writer stops at the deadline by its own clock, which may be behind this master's.
        assertThat(master.status().used()).as("held for the clock skew past the deadline").isEqualTo(4 * SLICE);
        now.addAndGet(GrantedRanges.CLOCK_SKEW_MILLIS);
        master.reapNow();
        assertThat(master.status().nodes()).allSatisfy(n -> assertThat(n.used()).isZero());
    }

    @Test
    void aPutOfAKeyWhosePendingPutIsPastItsDeadlineStartsWithoutWaitingForTheReaper() throws StoreException {
        PutGrant abandoned = start("k", SLICE, 1);
        assertCode(() -> start("k", SLICE, 1), ALREADY_EXISTS, "is being written by put " + abandoned.putId());
        now.addAndGet(config().putTimeout().toMillis() + 1);
        master.heartbeat(NodeReport.alive("n1"));
        master.heartbeat(NodeReport.alive("n2"));
        PutGrant next = start("k", SLICE, 1);
        assertThat(master.status().pendingPuts()).isEqualTo(1);
        assertCode(() -> seal(abandoned), NOT_FOUND);
        assertThat(seal(next).key()).isEqualTo("k");
    }

    @Test
    void aDeadWritersPutsAreReclaimedAtOnceAndNobodyElses() throws StoreException {
        PutGrant first = master.putStart("dead/a", 2 * SLICE, PutOptions.defaults().withWriter("host/1/import/x"));
        master.putStart("dead/b", SLICE, PutOptions.defaults().withWriter("host/1/import/x"));
        master.putStart("alive", SLICE, PutOptions.defaults().withWriter("host/2/import/y"));
        assertThat(master.abortPutsOf("host/1/import/x")).isEqualTo(2);
        assertThat(master.status().pendingPuts()).isEqualTo(1);
        assertCode(() -> seal(first), NOT_FOUND);
        seal(start("dead/a", 10, 1));
        assertCode(() -> master.abortPutsOf(""), INVALID_ARGUMENT);
    }

    @Test
    void theRoomOfAnIdentitysAbortedPutGoesToNoOtherPutWhileItsWriteGrantsLive() throws Exception {
        List<ReplicaRef> granted = Caller.as("writer mallory", () -> {
            PutGrant aborted = master.putStart("aborted", SLICE, PutOptions.defaults());
            master.putAbort(aborted.putId());
            return aborted.object().slice(0).replicas();
        });
        List<ReplicaRef> next = Caller.as("writer alice", () -> master.putStart("next", SLICE, PutOptions.defaults()))
                .object().slice(0).replicas();
        assertThat(next).as("the aborted put's grants could still write there").doesNotContainAnyElementsOf(granted);

        now.addAndGet(config().putTimeout().toMillis() + GrantedRanges.CLOCK_SKEW_MILLIS + 1);
        master.reapNow();
        master.heartbeat(NodeReport.alive("n1"));
        master.heartbeat(NodeReport.alive("n2"));
        assertThat(master.status().nodes()).allSatisfy(n -> assertThat(n.used()).isZero());
        assertThat(Caller.as("writer alice", () -> master.putStart("later", SLICE, PutOptions.defaults())).object().slice(0).replicas())
                .containsExactlyInAnyOrderElementsOf(granted);
    }

    @Test
    void anIdentityMayPutAgainIntoRoomOnlyItsOwnGrantsReachAndNoOneElseMay() throws Exception {
        List<ReplicaRef> granted = new ArrayList<>();
        List<ReplicaRef> again = Caller.as("writer alice", () -> {
            PutGrant aborted = master.putStart("aborted", 2 * SLICE, PutOptions.defaults());
            master.putAbort(aborted.putId());
            aborted.object().slices().forEach(slice -> granted.addAll(slice.replicas()));
            return master.putStart("again", SLICE, PutOptions.defaults()).object().slice(0).replicas();
        });
        assertThat(granted).as("the room alice's grants reach, on each node").hasSize(2).containsAll(again);
        List<ReplicaRef> others = Caller.as("writer bob", () -> master.putStart("others", SLICE, PutOptions.defaults()))
                .object().slice(0).replicas();
        assertThat(others).as("what alice's put did not take is still held").doesNotContainAnyElementsOf(granted);
    }

    @Test
    void roomHeldBackIsReportedAsTheCallersOwnOrOthersAndOnlyTheCallersCountsAsAvailableToIt() throws Exception {
        Room before = Caller.as("writer alice", () -> master.room());
        Caller.as("writer alice", () -> {
            PutGrant aborted = master.putStart("aborted", 2 * SLICE, PutOptions.defaults());
            master.putAbort(aborted.putId());
            return null;
        });
        Room alices = Caller.as("writer alice", () -> master.room());
        Room bobs = Caller.as("writer bob", () -> master.room());

        assertThat(alices.used()).isEqualTo(bobs.used()).isEqualTo(before.used() + 2 * SLICE);
        assertThat(alices.held()).isEqualTo(new Room.Held(2 * SLICE, 0, Optional.empty()));
        assertThat(alices.available()).as("alice may put into her own held room at once").isEqualTo(before.available());
        assertThat(bobs.held().forCaller()).isZero();
        assertThat(bobs.held().forOthers()).isEqualTo(2 * SLICE);
        assertThat(bobs.held().othersUntil()).hasValueSatisfying(until -> assertThat(until).isAfter(Instant.ofEpochMilli(now.get())));
        assertThat(bobs.available()).isEqualTo(before.available() - 2 * SLICE);

        now.set(bobs.held().othersUntil().orElseThrow().toEpochMilli() + 1);
        master.reapNow();
        master.heartbeat(NodeReport.alive("n1"));
        master.heartbeat(NodeReport.alive("n2"));
        assertThat(Caller.as("writer bob", () -> master.room())).as("the hold ends with the grants").isEqualTo(before);
    }

    @Test
    void anAnonymousAbortedPutFreesItsRoomAtOnce() throws StoreException {
        PutGrant aborted = master.putStart("aborted", SLICE, PutOptions.defaults());
        master.putAbort(aborted.putId());
        assertThat(master.status().nodes()).allSatisfy(n -> assertThat(n.used()).isZero());
        assertThat(master.putStart("next", SLICE, PutOptions.defaults()).object().slice(0).replicas())
                .containsExactlyInAnyOrderElementsOf(aborted.object().slice(0).replicas());
    }

    @Test
    void aPutWhoseRecordCannotBeWrittenTakesNoRoom() throws Exception {
        reopenOver(store -> new FailsOneBatch(store, MetadataBatch.Change.PutPending.class));
        assertCode(() -> start("unrecorded", 3 * SLICE, 2), StoreException.Code.IO);
        assertThat(master.status().pendingPuts()).isZero();
        assertThat(master.status().nodes()).allSatisfy(n -> assertThat(n.used()).isZero());
        seal(start("unrecorded", 3 * SLICE, 2));
        assertThat(master.status().used()).isEqualTo(2 * 3 * SLICE);
    }

    @Test
    void anAbortWhoseRecordCannotBeDeletedKeepsThePutAndItsRoom() throws Exception {
        reopenOver(store -> new FailsOneBatch(store, MetadataBatch.Change.DeletePending.class));
        PutGrant put = start("kept", 2 * SLICE, 1);
        long used = master.status().used();
        assertCode(() -> master.putAbort(put.putId()), StoreException.Code.IO);
        assertThat(master.status().pendingPuts()).as("the put its record still names").isEqualTo(1);
        assertThat(master.status().used()).isEqualTo(used);
        master.putAbort(put.putId());
        assertThat(master.status().pendingPuts()).isZero();
        assertThat(master.status().used()).isZero();
    }

    @Test
    void onlyTheIdentityThatStartedAWritersPutsMayReclaimThem() throws Exception {
        PutOptions importing = PutOptions.defaults().withWriter("host/1/import/x");
        Caller.as("writer alice", () -> master.putStart("alices", SLICE, importing));
        assertThat(Caller.as("writer mallory", () -> master.abortPutsOf("host/1/import/x"))).isZero();
        assertThat(master.status().pendingPuts()).isEqualTo(1);
        assertThat(Caller.as("writer alice", () -> master.abortPutsOf("host/1/import/x"))).isEqualTo(1);
        assertThat(master.status().pendingPuts()).isZero();
    }

    @Test
    void sliceChecksumsMustMatchTheSlices() throws StoreException {
        PutGrant put = start("sums", 2 * SLICE, 1);
        assertCode(() -> master.putEnd(put.putId(), List.of()), INVALID_ARGUMENT);
        assertCode(() -> master.putEnd(put.putId(), List.of(BlockCrcs.of(1), BlockCrcs.of(2))), INVALID_ARGUMENT);
    }

    @Test
    void nodeThatMissesItsDeadlineIsDownAndGetsNoReplicas() throws StoreException {
        now.addAndGet(config().nodeDeadline().toMillis() + 1);
        master.heartbeat(NodeReport.alive("n1"));
        assertThat(master.status().nodes()).extracting(NodeStatus::nodeId, NodeStatus::up)
                .containsExactly(tuple("n1", true), tuple("n2", false));
        assertCode(() -> start("needs-two", 10, 2), UNAVAILABLE);
        assertThat(start("one", 3 * SLICE, 1).object().slices()).allSatisfy(s -> assertThat(s.nodeIds()).containsExactly("n1"));
        assertThat(master.heartbeat(NodeReport.alive("stranger")).known()).isFalse();
    }

    @Test
    void slicesAreSpreadOverTheNodes() throws StoreException {
        ObjectMeta object = put("spread", 8 * SLICE);
        assertThat(object.slices()).extracting(s -> s.nodeIds().getFirst()).contains("n1", "n2");
    }

    @Test
    void unpinnedObjectsAreEvictedLeastRecentlyReadFirstAndPinnedOnesNever() throws StoreException {
        // 32 MiB in all; the high watermark is 75%.
        put("old", 8 * SLICE);
        now.addAndGet(10);
        ObjectMeta pinned = seal(master.putStart("pinned", 8 * SLICE, PutOptions.defaults().withPin(true)));
        assertThat(pinned.pinned()).isTrue();
        now.addAndGet(10);
        put("newer", 4 * SLICE);
        now.addAndGet(10);
        Lease lease = master.locate("old", Duration.ofMillis(1)).lease();
        now.addAndGet(10);
        assertThat(lease.expiresAt().toEpochMilli()).isLessThan(now.get());
        put("incoming", 8 * SLICE);
        assertCode(() -> master.stat("newer"), NOT_FOUND);
        assertThat(master.stat("old").size()).as("only what makes the new object fit is evicted").isEqualTo(8 * SLICE);
        assertThat(master.stat("pinned").pinned()).isTrue();
        assertThat(master.stat("incoming").size()).isEqualTo(8 * SLICE);
    }

    /** 20 of the 24 MiB under the high watermark, in three objects alice wrote just now, oldest first. */
    private void fillAsAlice() throws Exception {
        for (String key : new String[] {"a", "b", "c"}) {
            Caller.as("writer alice", () -> put(key, "c".equals(key) ? 4 * SLICE : 8 * SLICE));
            now.addAndGet(10);
        }
    }

    @Test
    void anObjectWhoseRoomAnotherWritersLiveGrantsStillReachIsNotEvictedForNothing() throws Exception {
        fillAsAlice();
        assertThat(Caller.as("writer bob", () -> master.room()).evictable()).as("removing alice's objects would free bob nothing yet")
                .isZero();

        Caller.as("writer bob", () -> put("bobs", 8 * SLICE));

        assertThat(List.of("a", "b", "c")).allSatisfy(key -> assertThat(master.stat(key).key()).isEqualTo(key));
        assertThat(master.stat("bobs").size()).isEqualTo(8 * SLICE);
    }

    @Test
    void aWriterEvictingItsOwnRecentObjectsEvictsOnlyWhatMakesRoomAndPutsIntoIt() throws Exception {
        fillAsAlice();
        assertThat(Caller.as("writer alice", () -> master.room()).evictable()).isEqualTo(20 * SLICE);

        Caller.as("writer alice", () -> put("next", 8 * SLICE));

        assertCode(() -> master.stat("a"), NOT_FOUND);
        assertThat(master.stat("b").key()).isEqualTo("b");
        assertThat(master.stat("c").key()).isEqualTo("c");
        assertThat(Caller.as("writer alice", () -> master.room()).used()).as("a's room went to next").isEqualTo(20 * SLICE);
    }

    @Test
    void onceTheWriteGrantsHaveExpiredAnyWritersPutEvictsTheLeastRecentlyReadAsBefore() throws Exception {
        fillAsAlice();
        now.addAndGet(config().putTimeout().toMillis() + GrantedRanges.CLOCK_SKEW_MILLIS + 1);
        master.heartbeat(NodeReport.alive("n1"));
        master.heartbeat(NodeReport.alive("n2"));
        assertThat(Caller.as("writer bob", () -> master.room()).evictable()).isEqualTo(20 * SLICE);

        Caller.as("writer bob", () -> put("bobs", 8 * SLICE));

        assertCode(() -> master.stat("a"), NOT_FOUND);
        assertThat(master.stat("b").key()).isEqualTo("b");
        assertThat(master.stat("c").key()).isEqualTo("c");
    }

    @Test
    void theLeastRecentlyReadOrderOutlivesARestart() throws StoreException {
        put("old", 10 * SLICE);
        now.addAndGet(10);
        put("newer", 10 * SLICE);
        now.addAndGet(10);
        master.locate("old", Duration.ofMillis(1));
        now.addAndGet(10);
        restartWithNodesRegistered();
        put("incoming", 10 * SLICE);
        assertCode(() -> master.stat("newer"), NOT_FOUND);
        assertThat(master.stat("old").size()).as("read since newer was made").isEqualTo(10 * SLICE);
    }

    @Test
    void readTimesAreRecordedAStepAfterTheLastAndLeaveWithTheirObject() throws StoreException {
        MetadataStore[] metadata = new MetadataStore[1];
        reopenOver(store -> metadata[0] = store);
        put("read", SLICE);
        now.addAndGet(MasterCore.READ_TIME_STEP / 2);
        master.locate("read", Duration.ofMillis(1));
        long read = now.get();
        master.reapNow();
        assertThat(readTimesOnRecord(metadata[0])).as("within a step of opening").isEmpty();
        now.addAndGet(MasterCore.READ_TIME_STEP / 2);
        master.reapNow();
        assertThat(readTimesOnRecord(metadata[0])).as("a step after opening").containsExactly(read);

        master.remove("read", true);
        assertThat(readTimesOnRecord(metadata[0])).isEmpty();
    }

    private static List<Long> readTimesOnRecord(MetadataStore metadata) throws StoreException {
        return metadata.readTimes().stream().map(read -> read.readAt().toEpochMilli()).toList();
    }

    @Test
    void leasedObjectIsNeitherEvictedNorRemovedWithoutForce() throws StoreException {
        put("read-now", 8 * SLICE);
        Lease lease = master.locate("read-now", MINUTE).lease();
        assertCode(() -> master.remove("read-now", false), FAILED_PRECONDITION);
        assertCode(() -> master.putStart("read-now", 10, PutOptions.defaults().withReplace(true)), FAILED_PRECONDITION);
        seal(master.putStart("filler", 12 * SLICE, PutOptions.defaults().withPin(true)));
        assertThat(master.stat("read-now").size()).isEqualTo(8 * SLICE);
        master.releaseLease("read-now", lease.id());
        master.remove("read-now", false);
    }

    @Test
    void locateAllLeasesEachObjectInTheKeysOrderAndTheLeasesOutliveARestartUntilReleasedTogether() throws StoreException {
        put("ckpt/a", SLICE);
        put("ckpt/b", 2 * SLICE);
        List<Located> located = master.locateAll(List.of("ckpt/b", "ckpt/a"), MINUTE);
        assertThat(located).extracting(l -> l.object().key()).containsExactly("ckpt/b", "ckpt/a");
        assertThat(located).extracting(l -> l.lease().id()).doesNotHaveDuplicates();
        master.close();
        master = open();
        registerNodes();
        assertCode(() -> master.remove("ckpt/a", false), FAILED_PRECONDITION);
        assertCode(() -> master.remove("ckpt/b", false), FAILED_PRECONDITION);
        master.releaseLeases(located.stream().map(l -> new HeldLease(l.object().key(), l.lease().id())).toList());
        master.remove("ckpt/a", false);
        master.remove("ckpt/b", false);
    }

    @Test
    void releasingTogetherEndsTheCallersLeasesAndRefusesAnotherCallersOne() throws Exception {
        put("mine", SLICE);
        put("theirs", SLICE);
        Lease theirs = Caller.as("reader alice", () -> master.locate("theirs", MINUTE).lease());
        Lease mine = Caller.as("reader bob", () -> master.locate("mine", MINUTE).lease());
        assertCode(() -> Caller.as("reader bob", () -> {
            master.releaseLeases(List.of(new HeldLease("theirs", theirs.id()), new HeldLease("mine", mine.id())));
            return null;
        }), PERMISSION_DENIED);
        master.remove("mine", false);
        assertCode(() -> master.remove("theirs", false), FAILED_PRECONDITION);
    }

    @Test
    void renewingTogetherExtendsEachLeaseKnownAndTellsWhichAreNotAndTheExtensionsOutliveARestart() throws StoreException {
        put("kept", SLICE);
        put("released", SLICE);
        put("removed", SLICE);
        List<Located> located = master.locateAll(List.of("kept", "released", "removed"), Duration.ofSeconds(10));
        List<HeldLease> held = located.stream().map(l -> new HeldLease(l.object().key(), l.lease().id())).toList();
        master.releaseLease("released", held.get(1).leaseId());
        master.remove("removed", true);
        now.addAndGet(8_000);
        List<Optional<Lease>> renewed = master.renewLeases(held, Duration.ofSeconds(10));
        assertThat(renewed).hasSize(3);
        assertThat(renewed.get(0)).hasValueSatisfying(lease -> {
            assertThat(lease.id()).isEqualTo(held.get(0).leaseId());
            assertThat(lease.expiresAt()).isAfter(located.get(0).lease().expiresAt());
        });
        assertThat(renewed.get(1)).as("released").isEmpty();
        assertThat(renewed.get(2)).as("its object removed").isEmpty();
        master.close();
        master = open();
        registerNodes();
        now.addAndGet(8_000);
        assertCode(() -> master.remove("kept", false), FAILED_PRECONDITION);
        now.addAndGet(10_000);
        assertThat(master.renewLeases(held.subList(0, 1), Duration.ofSeconds(10))).containsExactly(Optional.empty());
        master.remove("kept", false);
    }

    @Test
    void aRenewalThatFailsExtendsNoLeaseInMemoryThatItsRecordDoesNotHold() throws Exception {
        put("mine", SLICE);
        put("theirs", SLICE);
        put("recorded", SLICE);
        Lease theirs = Caller.as("reader alice", () -> master.locate("theirs", MINUTE).lease());
        Lease mine = Caller.as("reader bob", () -> master.locate("mine", MINUTE).lease());
        assertCode(() -> Caller.as("reader bob", () -> master.renewLeases(List.of(new HeldLease("mine", mine.id()),
                new HeldLease("theirs", theirs.id())), Duration.ofMinutes(5))), PERMISSION_DENIED);
        now.addAndGet(MINUTE.toMillis() + 1);
        master.remove("mine", false);

        Lease recorded = master.locate("recorded", MINUTE).lease();
        reopenOver(store -> new FailsOneBatch(store, MetadataBatch.Change.PutLease.class));
        assertCode(() -> master.renewLease("recorded", recorded.id(), Duration.ofMinutes(5)), StoreException.Code.IO);
        now.addAndGet(MINUTE.toMillis() + 1);
        master.remove("recorded", false);
    }

    @Test
    void oneCallTakesOrEndsAtMostWhatOneMetadataWriteHolds() throws StoreException {
        put("ckpt/a", SLICE);
        List<String> keys = Collections.nCopies(MasterApi.MAX_LEASES_PER_CALL + 1, "ckpt/a");
        assertCode(() -> master.locateAll(keys, MINUTE), INVALID_ARGUMENT);
        master.remove("ckpt/a", false);
        List<HeldLease> leases = Collections.nCopies(MasterApi.MAX_LEASES_PER_CALL + 1, new HeldLease("ckpt/b", 1));
        assertCode(() -> master.releaseLeases(leases), INVALID_ARGUMENT);
        assertCode(() -> master.renewLeases(leases, MINUTE), INVALID_ARGUMENT);
    }

    @Test
    void locateAllOfAKeyWithNoObjectTakesNoLeaseOnTheOthers() throws StoreException {
        put("ckpt/a", SLICE);
        assertCode(() -> master.locateAll(List.of("ckpt/a", "ckpt/missing"), MINUTE), NOT_FOUND);
        master.remove("ckpt/a", false);
    }

    @Test
    void aReplaceIsNotSealedWhileAReaderWhoOpenedTheObjectDuringItReadsOn() throws StoreException {
        ObjectMeta old = put("swap", 2 * SLICE);
        PutGrant replace = master.putStart("swap", SLICE, PutOptions.defaults().withReplace(true));
        Lease lease = master.locate("swap", MINUTE).lease();
        assertCode(() -> seal(replace), FAILED_PRECONDITION);
        assertThat(master.stat("swap")).isEqualTo(old);
        // The old copies are still taken: a put now is placed beside them, not over them.
        ObjectMeta other = put("other", 2 * SLICE);
        for (SliceMeta slice : other.slices()) {
            for (SliceMeta kept : old.slices()) {
                assertThat(slice.replicas()).doesNotContainAnyElementsOf(kept.replicas());
            }
        }
        master.releaseLease("swap", lease.id());
        seal(replace);
        assertThat(master.stat("swap").size()).isEqualTo(SLICE);
    }

    @Test
    void aReplaceSealedWithinTheMillisecondOfWhatItReplacesIsANewerVersion() throws StoreException {
        ObjectMeta old = put("same-ms", SLICE);
        ObjectMeta replaced = seal(master.putStart("same-ms", SLICE, PutOptions.defaults().withReplace(true)));
        assertThat(replaced.createdAt()).isAfter(old.createdAt());
        assertThat(master.stat("same-ms").createdAt()).isEqualTo(replaced.createdAt());
        // A repair of a slice checked under the old version must not be made into the new one.
        assertCode(() -> master.repairStart("same-ms", old.createdAt(), 0, ""), FAILED_PRECONDITION);
    }

    /** A second close (a server stopped, then its test's cleanup) once wrote the released leases' records to closed RocksDB. */
    @Test
    void closingAMasterAgainDoesNothing() throws StoreException {
        put("read", SLICE);
        master.releaseLease("read", master.locate("read", MINUTE).lease().id());
        master.close();

        assertThatCode(master::close).doesNotThrowAnyException();
    }

    @Test
    void leaseIsRenewedUntilReleasedAndUnknownAfterItExpires() throws StoreException {
        put("renewed", SLICE);
        Lease lease = master.locate("renewed", Duration.ofSeconds(10)).lease();
        now.addAndGet(8_000);
        Lease renewed = master.renewLease("renewed", lease.id(), Duration.ofSeconds(10));
        assertThat(renewed.expiresAt()).isAfter(lease.expiresAt());
        now.addAndGet(8_000);
        assertCode(() -> master.remove("renewed", false), FAILED_PRECONDITION);
        now.addAndGet(10_000);
        assertCode(() -> master.renewLease("renewed", lease.id(), Duration.ofSeconds(10)), NOT_FOUND);
        master.remove("renewed", false);
    }

    /**
     * A reader learns of a forced removal when it next renews its lease, and may read the object's room until then: that
     * room goes to no other put until the leases on the object end, across a restart too.
     */
    @Test
    void aForcedRemovalKeepsTheRoomItsReadersMayStillReadUntilTheirLeasesEnd() throws StoreException {
        put("alone", SLICE);
        put("read", 2 * SLICE);
        put("ckpt/read", SLICE);
        Lease lease = master.locate("read", Duration.ofSeconds(10)).lease();
        master.locate("ckpt/read", Duration.ofSeconds(10));
        long used = master.status().used();

        master.remove("alone", true);
        assertThat(master.status().used()).as("read by nobody: freed at once").isEqualTo(used - SLICE);
        master.remove("read", true);
        assertThat(master.removeAll(List.of("ckpt/read"), true)).isEqualTo(1);
        assertCode(() -> master.renewLease("read", lease.id(), Duration.ofSeconds(10)), NOT_FOUND);
        // A new object under the key is not the removed one: its readers' leases neither renew on it nor hold it.
        put("read", SLICE);
        assertCode(() -> master.renewLease("read", lease.id(), Duration.ofSeconds(10)), NOT_FOUND);
        master.remove("read", false);
        assertThat(master.status().objects()).isZero();
        assertThat(master.status().used()).as("still its readers'").isEqualTo(used - SLICE);
        restartWithNodesRegistered();
        master.reapNow();
        assertThat(master.status().used()).as("after a restart").isEqualTo(used - SLICE);

        now.addAndGet(10_001);
        master.reapNow();
        assertThat(master.status().used()).as("once the leases ended").isZero();
    }

    /** A reader of a force-removed object knows only its key: releasing its lease by it gives the room back at once. */
    @Test
    void aReaderReleasingTheLeaseOnAForceRemovedObjectGivesItsRoomBackWithoutWaitingForTheLeaseToEnd() throws StoreException {
        put("read", 2 * SLICE);
        Lease lease = master.locate("read", MINUTE).lease();
        master.remove("read", true);
        master.reapNow();
        assertThat(master.status().used()).as("the reader's").isEqualTo(2 * SLICE);

        master.releaseLease("read", lease.id());
        master.reapNow();

        assertThat(master.status().used()).isZero();
    }

    @Test
    void removeAllIsAllOrNothingWhileAnyObjectIsRead() throws StoreException {
        put("ckpt/a", SLICE);
        put("ckpt/b", SLICE);
        Lease lease = master.locate("ckpt/b", MINUTE).lease();
        assertCode(() -> master.removeAll(List.of("ckpt/a", "ckpt/b", "ckpt/none"), false), FAILED_PRECONDITION);
        assertThat(master.stat("ckpt/a").size()).as("nothing removed").isEqualTo(SLICE);
        master.releaseLease("ckpt/b", lease.id());
        long before = master.status().used();
        assertThat(master.removeAll(List.of("ckpt/a", "ckpt/b", "ckpt/none"), false)).isEqualTo(2);
        assertThat(master.status().used()).isEqualTo(before - 2 * SLICE);
        assertThat(master.status().objects()).isZero();
    }

    @Test
    void roomCountsFreeSpaceAndWhatEvictionCouldFree() throws StoreException {
        put("loose", 4 * SLICE);
        seal(master.putStart("kept", 2 * SLICE, PutOptions.defaults().withPin(true)));
        Room room = master.room();
        assertThat(room.capacity()).isEqualTo(2 * NODE);
        assertThat(room.used()).isEqualTo(6 * SLICE);
        assertThat(room.evictable()).isEqualTo(4 * SLICE);
        assertThat(room.available()).isEqualTo(2 * NODE - 2 * SLICE);
    }

    @Test
    void noRoomAfterEvictionIsAClearError() throws StoreException {
        seal(master.putStart("p", 24 * SLICE, PutOptions.defaults().withPin(true)));
        assertThatThrownBy(() -> start("big", 16 * SLICE, 1)).isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(NO_SPACE)).hasMessageContaining("big");
    }

    @Test
    void aPutLargerThanTheWholeClusterEvictsNothingAndSaysSo() throws StoreException {
        ObjectMeta victim = put("victim", 2 * SLICE);
        for (long size : new long[] {1L << 52, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> start("huge", size, 1)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(NO_SPACE)).hasMessageContaining("huge");
        }
        assertThat(master.stat("victim")).isEqualTo(victim);
        assertThat(master.status().pendingPuts()).isZero();
    }

    @Test
    void onlyWhoTookALeaseMayRenewOrReleaseItBeforeAndAfterARestart() throws Exception {
        put("shared", SLICE);
        Lease lease = Caller.as("reader alice", () -> master.locate("shared", MINUTE).lease());
        for (int restart = 0; restart < 2; restart++) {
            assertCode(() -> Caller.as("writer mallory", () -> {
                master.releaseLease("shared", lease.id());
                return null;
            }), PERMISSION_DENIED);
            assertCode(() -> Caller.as("writer mallory", () -> master.renewLease("shared", lease.id(), MINUTE)), PERMISSION_DENIED);
            assertCode(() -> master.remove("shared", false), FAILED_PRECONDITION);
            master.close();
            master = open();
        }
        Caller.as("reader alice", () -> master.renewLease("shared", lease.id(), MINUTE));
        Caller.as("reader alice", () -> {
            master.releaseLease("shared", lease.id());
            return null;
        });
        master.remove("shared", false);
    }

    @Test
    void aDrainAskedBeforeTheFirstLookOverTheReplicasCountsTheCopiesTheNodeHolds() throws StoreException {
        seal(start("held/a", 3 * SLICE, 2));
        seal(start("held/b", SLICE, 2));
        restartWithNodesRegistered();

        // The reaper first looks a second after opening: a restarted or newly elected master has counted nothing yet.
        NodeDrain drain = master.drainNode("n1", false);

        assertThat(drain.draining()).isTrue();
        assertThat(drain.replicasLeft()).isEqualTo(4);
    }

    @Test
    void aDrainGoesOnAfterTheMasterRestartsAndItsCancelToo() throws StoreException {
        seal(start("held/a", SLICE, 2));
        master.drainNode("n1", false);

        restartWithNodesRegistered();

        assertThat(draining()).containsExactly("n1");
        assertThat(master.drainNode("n1", false).replicasLeft()).isEqualTo(1);
        master.drainNode("n1", true);
        restartWithNodesRegistered();
        assertThat(draining()).isEmpty();
    }

    @Test
    void aDrainCountsTheReplicasOfPutsStillWritingToTheNode() throws StoreException {
        seal(start("held/a", SLICE, 2));
        PutGrant writing = start("held/b", 3 * SLICE, 2);

        NodeDrain drain = master.drainNode("n1", false);

        assertThat(drain.replicasLeft()).isEqualTo(4);
        master.putAbort(writing.putId());
        assertThat(master.drainNode("n1", false).replicasLeft()).isEqualTo(1);
    }

    private List<String> draining() throws StoreException {
        return master.status().nodes().stream().filter(NodeStatus::draining).map(NodeStatus::nodeId).toList();
    }

    @Test
    void aLeaseLongerThanTheMasterGrantsIsRefusedAndNotRenewedPastIt() throws StoreException {
        put("long", SLICE);
        assertCode(() -> master.locate("long", MasterCore.MAX_LEASE.plusSeconds(1)), INVALID_ARGUMENT);
        Lease lease = master.locate("long", MasterCore.MAX_LEASE).lease();
        assertCode(() -> master.renewLease("long", lease.id(), Duration.ofDays(20_000)), INVALID_ARGUMENT);
        master.releaseLease("long", lease.id());
        master.remove("long", false);
    }

    @Test
    void listPagesThroughKeysInOrder() throws StoreException {
        for (int i = 0; i < 25; i++) {
            put(String.format("page/%02d", i), 10);
        }
        put("pagf", 10);
        StringBuilder seen = new StringBuilder();
        String after = "";
        int pages = 0;
        while (true) {
            ListPage page = master.list("page/", after, 10);
            page.objects().forEach(o -> seen.append(o.key().substring(5)).append(','));
            pages++;
            if (page.next().isEmpty()) {
                break;
            }
            after = page.next().get();
        }
        assertThat(pages).isEqualTo(3);
        assertThat(seen.toString()).startsWith("00,01,").endsWith("23,24,").doesNotContain("pagf");
    }

    @Test
    void stateSurvivesReopeningTheMetadata() throws StoreException {
        put("kept", 2 * SLICE);
        start("pending", SLICE, 1);
        master.tryLock("l", "me", MINUTE);
        long used = master.status().used();
        master.close();
        master = open();
        assertThat(master.stat("kept").size()).isEqualTo(2 * SLICE);
        assertThat(master.status().pendingPuts()).isEqualTo(1);
        assertThat(master.status().used()).isEqualTo(used);
        assertThat(master.tryLock("l", "you", Duration.ofMillis(1)).held()).isFalse();
    }

    @Test
    void aLockWhoseExpiryWouldOverflowIsRefusedNotGrantedAlreadyExpired() throws StoreException {
        assertCode(() -> master.tryLock("l", "me", Duration.ofMillis(Long.MAX_VALUE)), INVALID_ARGUMENT, "ttl");
        assertThat(master.tryLock("l", "me", MINUTE).held()).isTrue();
        assertCode(() -> master.renewLock("l", "me", Duration.ofMillis(Long.MAX_VALUE)), INVALID_ARGUMENT, "ttl");
        assertThat(master.tryLock("l", "you", MINUTE).held()).as("the holder's lock stands").isFalse();
    }

    @Test
    void aLockForLongerThanTheMasterGrantsOrWithALongNameOrOwnerIsRefused() throws StoreException {
        assertCode(() -> master.tryLock("l", "me", MasterCore.MAX_LOCK_TTL.plusMillis(1)), INVALID_ARGUMENT, "ttl");
        String long_ = "x".repeat(MasterCore.MAX_LOCK_TEXT + 1);
        assertCode(() -> master.tryLock(long_, "me", MINUTE), INVALID_ARGUMENT, "nameLength=" + long_.length());
        assertCode(() -> master.tryLock("l", long_, MINUTE), INVALID_ARGUMENT, "ownerLength=" + long_.length());
        assertThat(master.tryLock("l", "me", MasterCore.MAX_LOCK_TTL).held()).isTrue();
        assertCode(() -> master.renewLock("l", "me", MasterCore.MAX_LOCK_TTL.plusMillis(1)), INVALID_ARGUMENT, "ttl");
    }

    @Test
    void anExpiredLocksRecordStaysRenewableForAnHourThenGoes() throws StoreException {
        assertThat(master.tryLock("l", "me", MINUTE).held()).isTrue();
        now.addAndGet(MINUTE.toMillis() + MasterCore.EXPIRED_LOCKS_KEPT.toMillis() / 2);
        master.reapNow();
        assertThat(master.renewLock("l", "me", MINUTE).held()).as("a paused holder no one overtook").isTrue();
        now.addAndGet(MINUTE.toMillis() + MasterCore.EXPIRED_LOCKS_KEPT.toMillis() + 1);
        master.reapNow();
        assertCode(() -> master.renewLock("l", "me", MINUTE), FAILED_PRECONDITION, "not held by me");
        master.close();
        try (MetadataStore store = RocksMetadataStore.open(dir)) {
            assertThat(store.locks()).isEmpty();
        } finally {
            master = open();
        }
    }

    @Test
    void aNodeKnownOnlyFromTheMetadataMustRegisterBeforeItsHeartbeatsCount() throws StoreException {
        master.close();
        master = open();
        // A secure node renews its grant key when it registers: the grants of the master before are then void.
        assertThat(master.heartbeat(NodeReport.alive("n1")).known()).isFalse();
        master.registerNode(node("n1", NODE));
        assertThat(master.heartbeat(NodeReport.alive("n1")).known()).isTrue();
        assertThat(master.heartbeat(NodeReport.alive("n2")).known()).as("n2 has not registered again").isFalse();
    }

    @Test
    void readLeasesSurviveReopeningTheMetadataAndEndedOnesAreDropped() throws StoreException {
        put("held", SLICE);
        put("released", SLICE);
        Lease held = master.locate("held", MINUTE).lease();
        Lease released = master.locate("released", MINUTE).lease();
        master.releaseLease("released", released.id());
        master.reapNow(); // deletes the released lease's record
        master.close();
        master = open();
        assertCode(() -> master.remove("held", false), FAILED_PRECONDITION);
        assertThat(master.renewLease("held", held.id(), MINUTE).id()).isEqualTo(held.id());
        assertThat(master.locate("held", MINUTE).lease().id()).as("new ids stay above recovered ones").isGreaterThan(held.id());
        master.remove("released", false);
        now.addAndGet(2 * MINUTE.toMillis());
        master.reapNow();
        master.close();
        master = open();
        master.remove("held", false);
    }

    @Test
    void aDroppedCopyStillReadKeepsItsRangeAcrossARestartUntilItsReaderLeaves() throws StoreException {
        ObjectMeta read = seal(start("read", SLICE, 2));
        Lease lease = master.locate("read", MINUTE).lease();
        master.setReplicas(List.of("read"), 1, false);
        master.reapNow();
        List<ReplicaRef> dropped = new ArrayList<>(read.slice(0).replicas());
        dropped.removeAll(master.stat("read").slice(0).replicas());
        assertThat(dropped).as("the copy trimmed from the object").hasSize(1);
        restartWithNodesRegistered();
        assertThat(seal(start("next", SLICE, 2)).slice(0).replicas()).as("a put after the restart, while the reader holds its lease")
                .doesNotContainAnyElementsOf(dropped);
        master.releaseLease("read", lease.id());
        master.reapNow();
        assertThat(seal(start("after", SLICE, 2)).slice(0).replicas()).as("a put once the reader left").containsAll(dropped);
    }

    @Test
    void aReaderWhoCameAfterTheChangeDoesNotHoldItsRetiredRangeWhenTheNewLeadersClockIsBehind() throws StoreException {
        ObjectMeta read = seal(start("read", SLICE, 2));
        Lease lease = master.locate("read", MINUTE).lease();
        put("other", SLICE);
        // A lease taken later than the reader's: the change's mark is above every lease a restart recovers.
        master.releaseLease("other", master.locate("other", MINUTE).lease().id());
        master.setReplicas(List.of("read"), 1, false);
        master.reapNow();
        List<ReplicaRef> dropped = new ArrayList<>(read.slice(0).replicas());
        dropped.removeAll(master.stat("read").slice(0).replicas());
        // A master taking over with its clock ten minutes behind seeds its lease ids below the change's mark.
        now.addAndGet(-Duration.ofMinutes(10).toMillis());
        restartWithNodesRegistered();
        master.locate("read", MINUTE);
        master.releaseLease("read", lease.id());
        master.reapNow();
        assertThat(seal(start("after", SLICE, 2)).slice(0).replicas()).as("a put once the reader from before the change left")
                .containsAll(dropped);
    }

    @Test
    void aRetiredRangeRecordOverAnotherObjectsCopyIsDroppedAtStartAndTheObjectKept() throws StoreException {
        ObjectMeta live = put("live", SLICE);
        master.close();
        try (MetadataStore store = RocksMetadataStore.open(dir)) {
            store.apply(new MetadataBatch().putRetired(new RetiredRange("gone", 1, live.slice(0).replicas().getFirst(), SLICE))
                    .putRetired(new RetiredRange("gone", 1, new ReplicaRef("forgotten-node", 0), SLICE)));
        }
        master = open();
        assertThat(master.stat("live")).isEqualTo(live);
        master.close();
        try (MetadataStore store = RocksMetadataStore.open(dir)) {
            assertThat(store.retiredRanges()).isEmpty();
        }
        master = open();
    }

    @Test
    void forgettingANodeDropsTheRecordsOfItsRetiredRanges() throws StoreException {
        ObjectMeta read = seal(start("read", SLICE, 2));
        master.locate("read", MINUTE);
        master.setReplicas(List.of("read"), 1, false);
        master.reapNow();
        List<ReplicaRef> dropped = new ArrayList<>(read.slice(0).replicas());
        dropped.removeAll(master.stat("read").slice(0).replicas());
        String forgotten = dropped.getFirst().nodeId();
        master.forgetNode(forgotten, true);
        master.registerNode(node(forgotten, NODE)); // the same id, an empty pool
        restartWithNodesRegistered();
        assertThat(seal(start("next", SLICE, 2)).slice(0).replicas()).as("the node's pool is free again after a restart")
                .containsAll(dropped);
    }

    @Test
    void onlyTheIdentityThatTookALockMayTakeItAgainRenewOrReleaseIt() throws Exception {
        String owner = "host-1/4242/import/ckpt";
        assertThat(Caller.as("writer alice", () -> master.tryLock("l", owner, MINUTE)).held()).isTrue();
        // The owner is a string a refusal shows to anyone; naming it is not being it.
        assertThat(Caller.as("writer mallory", () -> master.tryLock("l", owner, MINUTE)).held()).isFalse();
        assertCode(() -> Caller.as("writer mallory", () -> master.renewLock("l", owner, MINUTE)), PERMISSION_DENIED);
        assertCode(() -> Caller.as("writer mallory", () -> {
            master.releaseLock("l", owner);
            return null;
        }), PERMISSION_DENIED);
        assertThat(Caller.as("writer mallory", () -> master.tryLock("l", "mallory", MINUTE)).held()).isFalse();

        master.close();
        master = open();
        assertThat(Caller.as("writer alice", () -> master.renewLock("l", owner, MINUTE)).held()).isTrue();
        Caller.as("writer alice", () -> {
            master.releaseLock("l", owner);
            return null;
        });
        assertThat(Caller.as("writer mallory", () -> master.tryLock("l", "mallory", MINUTE)).held()).isTrue();
    }

    @Test
    void aPutUnderALockStartsAndIsSealedOnlyWhileItsWriterHoldsTheLock() throws Exception {
        String writer = "host-1/4242/import/ckpt";
        PutOptions underLock = PutOptions.defaults().withWriterUnderLock(writer, "weights/ckpt");
        assertCode(() -> master.putStart("never", SLICE, underLock), FAILED_PRECONDITION);
        master.tryLock("weights/ckpt", writer, MINUTE);
        PutGrant put = master.putStart("k", SLICE, underLock);

        // The writer is paused past its lock's expiry, and another takes the lock; the put, recorded with its lock, survives a restart.
        now.addAndGet(MINUTE.toMillis() + 1);
        assertThat(master.tryLock("weights/ckpt", "host-2/7/import/ckpt", MINUTE).held()).isTrue();
        master.close();
        master = open();
        assertCode(() -> seal(put), FAILED_PRECONDITION);
        assertCode(() -> master.putStart("k2", SLICE, underLock), FAILED_PRECONDITION);
    }

    @Test
    void aPutOfAWriterWhoLostItsLockGivesWayToTheNextHoldersPutOfTheSameKey() throws Exception {
        String first = "host-1/4242/import/ckpt";
        String next = "host-2/7/import/ckpt";
        master.tryLock("weights/ckpt", first, Duration.ofSeconds(1));
        PutGrant dead = master.putStart("k", SLICE, PutOptions.defaults().withWriterUnderLock(first, "weights/ckpt"));
        assertCode(() -> master.putStart("k", SLICE, PutOptions.defaults()), ALREADY_EXISTS);

        now.addAndGet(1001); // the first writer's lock expires (its nodes are still up: their deadline is 3 s)
        master.tryLock("weights/ckpt", next, MINUTE);
        assertCode(() -> master.putStart("k", SLICE, PutOptions.defaults()), ALREADY_EXISTS);
        seal(master.putStart("k", SLICE, PutOptions.defaults().withWriterUnderLock(next, "weights/ckpt")));

        assertThat(master.status().pendingPuts()).isZero();
        assertCode(() -> seal(dead), NOT_FOUND);
    }

    /**
     * The writer who lost its lock may still be sending (it was paused, not dead), and no grant stops an insecure one, nor
     * one of the same identity as the next holder: the room of its put goes to no put, the next holder's included, until
     * the put's deadline has passed.
     */
    @Test
    void theRoomOfAPutGivenUpForItsLostLockGoesToNoPutBeforeItsDeadline() throws Exception {
        String first = "host-1/4242/import/ckpt";
        String next = "host-2/7/import/ckpt";
        master.tryLock("weights/ckpt", first, Duration.ofSeconds(1));
        PutGrant paused = master.putStart("k", 4 * SLICE, PutOptions.defaults().withWriterUnderLock(first, "weights/ckpt"));
        Set<ReplicaRef> itsRoom = paused.object().slices().stream().flatMap(s -> s.replicas().stream()).collect(Collectors.toSet());

        now.addAndGet(1001);
        master.tryLock("weights/ckpt", next, MINUTE);
        ObjectMeta taken = seal(master.putStart("k", 4 * SLICE, PutOptions.defaults().withWriterUnderLock(next, "weights/ckpt")));

        assertThat(taken.slices()).flatMap(SliceMeta::replicas).doesNotContainAnyElementsOf(itsRoom);
        master.remove("k", false);
        now.set(paused.deadline().toEpochMilli() + GrantedRanges.CLOCK_SKEW_MILLIS + 1);
        master.reapNow();
        assertThat(master.status().used()).as("all of it free once the deadline has passed").isZero();
    }

    @Test
    void aRemovalUnderALockIsMadeOnlyWhileItsWriterHoldsTheLock() throws Exception {
        put("k", SLICE);
        String writer = "host-1/4242/delete/ckpt";
        master.tryLock("weights/ckpt", writer, Duration.ofSeconds(1));
        now.addAndGet(1001);
        master.tryLock("weights/ckpt", "host-2/7/import/ckpt", MINUTE);
        assertCode(() -> master.removeAll(List.of("k"), false, writer, "weights/ckpt"), FAILED_PRECONDITION);
        assertThat(master.stat("k").key()).isEqualTo("k");
        assertThat(master.removeAll(List.of("k"), false, "host-2/7/import/ckpt", "weights/ckpt")).isEqualTo(1);
    }

    @Test
    void expiredLockGoesToTheNextOwner() throws StoreException {
        master.tryLock("l", "a", Duration.ofSeconds(1));
        assertThat(master.tryLock("l", "b", Duration.ofSeconds(1)).held()).isFalse();
        now.addAndGet(1001);
        assertThat(master.tryLock("l", "b", Duration.ofSeconds(1)).held()).isTrue();
    }

    @Test
    void nodeCannotChangeItsPoolSize() {
        assertCode(() -> master.registerNode(node("n1", NODE * 2)), INVALID_ARGUMENT);
    }
}
