package io.weightstore.store.master;

import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.NodeLoad;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the master trims the copies of a lowered count: where the remaining copies end up. */
class MasterTrimTest {
    private static final int SLICES = 8;

    @TempDir
    Path dir;

    @Test
    void aCountLoweredOnManySlicesTrimsEachNodeInTurnNotTheFullestEveryTime() throws StoreException {
        try (MasterCore master = ClockedMasters.open(dir, new AtomicLong(1_000_000))) {
            List<String> ids = List.of("n1", "n2", "n3", "n4");
            for (String id : ids) {
                master.registerNode(node(id));
            }
            put(master, "obj", SLICES, 4);
            // Two nodes a slice fuller than the others: the fullest are trimmed first, but not on every slice.
            put(master, "small", 1, 2);

            master.setReplicas(List.of("obj"), 2, false);
            master.reapNow();

            ObjectMeta trimmed = master.stat("obj");
            assertThat(trimmed.slices()).allSatisfy(s -> assertThat(s.replicas()).hasSize(2));
            Map<String, Long> perNode = trimmed.slices().stream().map(SliceMeta::nodeIds).flatMap(List::stream)
                    .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
            assertThat(perNode).as("copies left per node, of %d slices at 2 copies on 4 nodes", SLICES)
                    .containsOnlyKeys(ids).allSatisfy((id, copies) -> assertThat(copies).isBetween(SLICES * 2 / 4 - 1L, SLICES * 2 / 4 + 1L));
        }
    }

    /**
     * A master that restarts, or takes over a group, knows no node up until each registers with it again: the copies that
     * readers raised an auto count to must outlast that, or every failover drops them and copies them again.
     */
    @Test
    void copiesReadersRaisedAreKeptWhileAMasterJustOpenedWaitsForItsNodes() throws StoreException {
        AtomicLong now = new AtomicLong(1_000_000);
        List<String> ids = List.of("n1", "n2", "n3", "n4");
        try (MasterCore master = ClockedMasters.open(dir, now)) {
            for (String id : ids) {
                master.registerNode(node(id));
            }
            put(master, "read", 1, 4);
            master.setReplicas(List.of("read"), 1, true);
            for (int reader = 0; reader < 8; reader++) {
                master.locate("read", Duration.ofMinutes(10));
            }
            master.reapNow();
            assertThat(master.stat("read").slice(0).replicas()).as("8 readers, 2 a copy").hasSize(4);
        }
        try (MasterCore reopened = ClockedMasters.open(dir, now)) {
            reopened.reapNow();
            assertThat(reopened.stat("read").slice(0).replicas()).as("before any node registered again").hasSize(4);
            for (String id : ids) {
                reopened.registerNode(node(id));
            }
            now.addAndGet(ClockedMasters.config().nodeDeadline().toMillis() + 1);
            for (String id : ids) {
                reopened.heartbeat(NodeReport.alive(id));
            }
            reopened.reapNow();
            assertThat(reopened.stat("read").slice(0).replicas()).as("its readers still hold it").hasSize(4);
        }
    }

    /** A master whose metadata writes take at most 128 changes each, as etcd's transactions do, with "big" in 150 slices at 2 copies. */
    private MasterCore bigAtTwoCopiesOnTwoNodesUnderSmallTransactions() throws StoreException {
        AtomicLong now = new AtomicLong(1_000_000);
        MasterCore master = MasterCore.open(new AtMostPerBatch(RocksMetadataStore.open(dir), 128), ClockedMasters.config(), now::get);
        try {
            for (String id : List.of("n1", "n2")) {
                master.registerNode(node(id, 256 * SLICE));
            }
            put(master, "big", 150, 2);
            return master;
        } catch (StoreException | RuntimeException e) {
            master.close();
            throw e;
        }
    }

    @Test
    void copiesDroppedUnderAReaderAreRecordedAndFreedInChangesAnEtcdTransactionTakes() throws StoreException {
        try (MasterCore master = bigAtTwoCopiesOnTwoNodesUnderSmallTransactions()) {
            Lease lease = master.locate("big", Duration.ofMinutes(1)).lease();
            master.setReplicas(List.of("big"), 1, false);
            master.reapNow();
            assertThat(master.stat("big").slices()).as("slices trimmed by the first look").filteredOn(s -> s.replicas().size() == 1)
                    .hasSize(Replication.MAX_DROPS_PER_CHANGE);
            master.reapNow();
            assertThat(master.stat("big").slices()).allSatisfy(s -> assertThat(s.replicas()).hasSize(1));
            assertThat(used(master)).as("bytes taken while the reader holds the dropped copies").isEqualTo(300 * SLICE);
            master.releaseLease("big", lease.id());
            master.reapNow();
            assertThat(used(master)).as("bytes taken once the reader left").isEqualTo(150 * SLICE);
        }
    }

    @Test
    void aForcedRemovalUnderAReaderRecordsItsRetiredRangesInChangesAnEtcdTransactionTakes() throws StoreException {
        try (MasterCore master = bigAtTwoCopiesOnTwoNodesUnderSmallTransactions()) {
            master.locate("big", Duration.ofMinutes(1));

            master.remove("big", true);

            assertThat(master.status().objects()).isZero();
            assertThat(used(master)).as("bytes the reader still holds").isEqualTo(300 * SLICE);
        }
    }

    @Test
    void badCopiesDroppedUnderAReaderTakeTheirRecordsInChangesAnEtcdTransactionTakes() throws StoreException {
        try (MasterCore master = bigAtTwoCopiesOnTwoNodesUnderSmallTransactions()) {
            master.locate("big", Duration.ofMinutes(1));
            ObjectMeta big = master.stat("big");
            List<ScrubFinding> onN2 = new ArrayList<>();
            for (int i = 0; i < big.slices().size(); i++) {
                ReplicaRef bad = big.slice(i).replicas().stream().filter(r -> r.nodeId().equals("n2")).findFirst().orElseThrow();
                onN2.add(new ScrubFinding("big", big.createdAt(), i, bad.offset(), "block 0 does not match"));
            }
            master.heartbeat(new NodeReport("n2", NodeLoad.none(), List.of(), onN2, 0));
            master.setReplicas(List.of("big"), 1, false);
            master.reapNow();
            assertThat(master.stat("big").slices()).as("slices trimmed by the first look: a retired range and a bad copy's record each")
                    .filteredOn(s -> s.replicas().size() == 1).hasSize(Replication.MAX_DROPS_PER_CHANGE / 2);
            master.reapNow();
            master.reapNow();
            assertThat(master.stat("big").slices()).allSatisfy(s -> assertThat(s.nodeIds()).containsExactly("n1"));
            assertThat(master.status().replication().badCopies()).isZero();
        }
    }

    private static long used(MasterCore master) {
        return master.status().nodes().stream().mapToLong(NodeStatus::used).sum();
    }

    private static void put(MasterCore master, String key, int slices, int replicas) throws StoreException {
        PutGrant put = master.putStart(key, slices * SLICE, PutOptions.defaults().withReplicas(replicas));
        master.putEnd(put.putId(), put.object().slices().stream().map(s -> BlockCrcs.of(new int[16])).toList());
    }
}
