package io.weightstore.store.master;

import static io.weightstore.store.StoreException.Code.ALREADY_EXISTS;
import static io.weightstore.store.StoreException.Code.INVALID_ARGUMENT;
import static io.weightstore.store.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.StoreException.Code.NO_SPACE;
import static io.weightstore.store.StoreException.Code.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.StoreException;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.NodeInfo;
import io.weightstore.store.proto.ObjectMeta;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.proto.SetPinnedRequest;
import io.weightstore.store.proto.SliceChecksums;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatusRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master's rules, driven through its API with a clock the test moves. */
class MasterCoreTest {
    private static final long SLICE = 1 << 20;
    private static final long NODE = 16 * SLICE;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000_000);
    private MasterCore master;

    private static MasterConfig config() {
        return new MasterConfig(SLICE, 64 << 10, Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofSeconds(30),
                Duration.ofSeconds(60), 0.75, 0.5);
    }

    @BeforeEach
    void open() throws StoreException {
        master = MasterCore.open(dir, config(), now::get);
        for (String id : new String[] {"n1", "n2"}) {
            master.registerNode(RegisterNodeRequest.newBuilder().setNode(NodeInfo.newBuilder().setNodeId(id).setHost("h")
                    .setPort(1).setCapacity(NODE)).build());
        }
    }

    @AfterEach
    void close() {
        master.close();
    }

    private PutStartResponse start(String key, long size, int replicas) throws StoreException {
        return master.putStart(PutStartRequest.newBuilder().setKey(key).setSize(size).setReplicas(replicas).build());
    }

    private ObjectMeta seal(PutStartResponse put) throws StoreException {
        PutEndRequest.Builder end = PutEndRequest.newBuilder().setPutId(put.getPutId());
        put.getObject().getSlicesList().forEach(slice -> {
            SliceChecksums.Builder sums = SliceChecksums.newBuilder();
            for (long b = 0; b < Math.ceilDiv(slice.getLength(), 64 << 10); b++) {
                sums.addBlockCrcs((int) b);
            }
            end.addChecksums(sums);
        });
        return master.putEnd(end.build()).getObject();
    }

    private ObjectMeta put(String key, long size) throws StoreException {
        return seal(start(key, size, 1));
    }

    private void assertCode(ThrowingAction action, StoreException.Code code) {
        assertThatThrownBy(action::run).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                .satisfies(e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(code));
    }

    @FunctionalInterface
    interface ThrowingAction {
        void run() throws Exception;
    }

    @Test
    void unsealedObjectIsInvisibleUntilPutEnd() throws StoreException {
        PutStartResponse put = start("w/a", 3 * SLICE, 2);
        assertThat(put.getObject().getSlicesList()).allSatisfy(s -> assertThat(s.getReplicasList())
                .extracting(r -> r.getNodeId()).containsExactlyInAnyOrder("n1", "n2"));
        assertCode(() -> master.stat(StatRequest.newBuilder().setKey("w/a").build()), NOT_FOUND);
        assertThat(master.list(ListRequest.newBuilder().setPrefix("w/").build()).getObjectsList()).isEmpty();
        assertCode(() -> start("w/a", 10, 1), ALREADY_EXISTS);
        seal(put);
        assertThat(master.stat(StatRequest.newBuilder().setKey("w/a").build()).getObject().getSize()).isEqualTo(3 * SLICE);
    }

    @Test
    void abandonedPutIsReclaimedAfterItsDeadline() throws StoreException {
        PutStartResponse put = start("abandoned", 4 * SLICE, 1);
        assertThat(master.status(StatusRequest.getDefaultInstance()).getPendingPuts()).isEqualTo(1);
        now.addAndGet(config().putTimeout().toMillis() + 1);
        master.reapNow();
        assertThat(master.status(StatusRequest.getDefaultInstance()).getPendingPuts()).isZero();
        assertThat(master.status(StatusRequest.getDefaultInstance()).getNodesList()).allSatisfy(n -> assertThat(n.getUsed()).isZero());
        assertCode(() -> seal(put), NOT_FOUND);
    }

    @Test
    void sliceChecksumsMustMatchTheSlices() throws StoreException {
        PutStartResponse put = start("sums", 2 * SLICE, 1);
        assertCode(() -> master.putEnd(PutEndRequest.newBuilder().setPutId(put.getPutId()).build()), INVALID_ARGUMENT);
    }

    @Test
    void nodeThatMissesItsDeadlineIsDownAndGetsNoReplicas() throws StoreException {
        now.addAndGet(config().nodeDeadline().toMillis() + 1);
        master.heartbeat(HeartbeatRequest.newBuilder().setNodeId("n1").build());
        assertThat(master.status(StatusRequest.getDefaultInstance()).getNodesList())
                .extracting(NodeInfo::getNodeId, NodeInfo::getUp).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("n1", true), org.assertj.core.groups.Tuple.tuple("n2", false));
        assertCode(() -> start("needs-two", 10, 2), UNAVAILABLE);
        assertThat(start("one", 3 * SLICE, 1).getObject().getSlicesList())
                .allSatisfy(s -> assertThat(s.getReplicas(0).getNodeId()).isEqualTo("n1"));
        assertThat(master.heartbeat(HeartbeatRequest.newBuilder().setNodeId("stranger").build()).getKnown()).isFalse();
    }

    @Test
    void slicesAreSpreadOverTheNodes() throws StoreException {
        ObjectMeta object = put("spread", 8 * SLICE);
        assertThat(object.getSlicesList()).extracting(s -> s.getReplicas(0).getNodeId()).contains("n1", "n2");
    }

    @Test
    void unpinnedObjectsAreEvictedLeastRecentlyReadFirstAndPinnedOnesNever() throws StoreException {
        // 32 MiB in all; the high watermark is 75%.
        put("old", 8 * SLICE);
        now.addAndGet(10);
        ObjectMeta pinned = seal(master.putStart(PutStartRequest.newBuilder().setKey("pinned").setSize(8 * SLICE).setPin(true).build()));
        assertThat(pinned.getPinned()).isTrue();
        now.addAndGet(10);
        put("newer", 4 * SLICE);
        now.addAndGet(10);
        master.getReplicas(io.weightstore.store.proto.GetReplicasRequest.newBuilder().setKey("old").setLeaseMs(1).build());
        now.addAndGet(10);
        put("incoming", 8 * SLICE);
        assertCode(() -> master.stat(StatRequest.newBuilder().setKey("newer").build()), NOT_FOUND);
        assertThat(master.stat(StatRequest.newBuilder().setKey("pinned").build()).getObject().getPinned()).isTrue();
        assertThat(master.stat(StatRequest.newBuilder().setKey("incoming").build()).getObject().getSize()).isEqualTo(8 * SLICE);
    }

    @Test
    void noRoomAfterEvictionIsAClearError() throws StoreException {
        seal(master.putStart(PutStartRequest.newBuilder().setKey("p").setSize(24 * SLICE).setPin(true).build()));
        master.setPinned(SetPinnedRequest.newBuilder().setKey("p").setPinned(true).build());
        assertThatThrownBy(() -> start("big", 16 * SLICE, 1)).isInstanceOf(StoreException.class)
                .satisfies(e -> assertThat(((StoreException) e).code()).isEqualTo(NO_SPACE)).hasMessageContaining("big");
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
        do {
            ListResponse page = master.list(ListRequest.newBuilder().setPrefix("page/").setStartAfter(after).setLimit(10).build());
            page.getObjectsList().forEach(o -> seen.append(o.getKey().substring(5)).append(','));
            after = page.getNextStartAfter();
            pages++;
        } while (!after.isEmpty());
        assertThat(pages).isEqualTo(3);
        assertThat(seen.toString()).startsWith("00,01,").endsWith("23,24,").doesNotContain("pagf");
    }

    @Test
    void stateSurvivesReopeningTheMetadata() throws StoreException {
        put("kept", 2 * SLICE);
        start("pending", SLICE, 1);
        master.tryLock(LockRequest.newBuilder().setName("l").setOwner("me").setTtlMs(60_000).build());
        long used = master.status(StatusRequest.getDefaultInstance()).getNodesList().stream().mapToLong(NodeInfo::getUsed).sum();
        master.close();
        master = MasterCore.open(dir, config(), now::get);
        assertThat(master.stat(StatRequest.newBuilder().setKey("kept").build()).getObject().getSize()).isEqualTo(2 * SLICE);
        assertThat(master.status(StatusRequest.getDefaultInstance()).getPendingPuts()).isEqualTo(1);
        assertThat(master.status(StatusRequest.getDefaultInstance()).getNodesList().stream().mapToLong(NodeInfo::getUsed).sum())
                .isEqualTo(used);
        assertThat(master.tryLock(LockRequest.newBuilder().setName("l").setOwner("you").setTtlMs(1).build()).getHeld()).isFalse();
    }

    @Test
    void expiredLockGoesToTheNextOwner() throws StoreException {
        master.tryLock(LockRequest.newBuilder().setName("l").setOwner("a").setTtlMs(1000).build());
        assertThat(master.tryLock(LockRequest.newBuilder().setName("l").setOwner("b").setTtlMs(1000).build()).getHeld()).isFalse();
        now.addAndGet(1001);
        assertThat(master.tryLock(LockRequest.newBuilder().setName("l").setOwner("b").setTtlMs(1000).build()).getHeld()).isTrue();
    }

    @Test
    void nodeCannotChangeItsPoolSize() {
        assertCode(() -> master.registerNode(RegisterNodeRequest.newBuilder().setNode(NodeInfo.newBuilder().setNodeId("n1")
                .setCapacity(NODE * 2)).build()), INVALID_ARGUMENT);
    }
}
