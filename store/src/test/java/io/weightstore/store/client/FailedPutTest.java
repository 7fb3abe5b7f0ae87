package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.InProcessStore;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.master.MasterConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put whose slice fails frees its space at once, so it must first let none of its other slice
 * writes run: one still under way, or one queued that starts later, would write into whatever the
 * next put is given there.
 */
class FailedPutTest {
    private static final long SLICE = 1 << 20;

    @TempDir
    Path tmp;

    @Test
    void aFailedPutLetsNoneOfItsSliceWritesRunOnceItsSpaceIsFreed() throws Exception {
        AtomicInteger slicesWritten = new AtomicInteger();
        AtomicInteger writtenWhenFreed = new AtomicInteger(-1);
        try (StoreClient store = InProcessStore.open(tmp, 64 << 20, MasterConfig.defaults().withSliceSize(SLICE),
                master -> firstSliceOnAGhostNode(master, () -> writtenWhenFreed.set(slicesWritten.get())));
                Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(16 * SLICE);
            Progress slowly = countingSlowly(slicesWritten, 100);

            assertThatThrownBy(() -> store.put("k", data, PutOptions.defaults(), slowly)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("unknown node ghost");
            int whenThrown = slicesWritten.get();
            sleep(1_000);

            assertThat(writtenWhenFreed.get()).as("slices written when the put's space was freed").isEqualTo(whenThrown)
                    .isEqualTo(slicesWritten.get()).isLessThan(15);
            assertThat(store.find("k")).isEmpty();
        }
    }

    /**
     * Past its deadline the master gives a put up and its room goes to other puts once no grant can reach it; an insecure
     * node takes any write, so the writer itself must stop there.
     */
    @Test
    void aPutStopsWritingAtItsDeadline() throws Exception {
        MasterConfig defaults = MasterConfig.defaults();
        MasterConfig shortPuts = new MasterConfig(SLICE, (int) SLICE, defaults.heartbeatInterval(), defaults.nodeDeadline(),
                defaults.leaseDuration(), Duration.ofMillis(500), defaults.highWatermark());
        AtomicInteger slicesWritten = new AtomicInteger();
        try (StoreClient store = InProcessStore.open(tmp, 64 << 20, shortPuts, master -> master); Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(16 * SLICE);
            Progress slowly = countingSlowly(slicesWritten, 200);

            assertThatThrownBy(() -> store.put("k", data, PutOptions.defaults(), slowly)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("put of k passed its deadline");
            assertThat(slicesWritten.get()).as("slices written of 16, 200 ms each, in a put of 500 ms").isLessThan(16);
            assertThat(store.find("k")).isEmpty();
        }
    }

    /** The master, with the first slice of every put placed on a node it never names, and {@code onAbort} run as it frees a put. */
    private static MasterApi firstSliceOnAGhostNode(MasterApi master, Runnable onAbort) {
        return (MasterApi) Proxy.newProxyInstance(MasterApi.class.getClassLoader(), new Class<?>[] {MasterApi.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("putAbort")) {
                        onAbort.run();
                    }
                    Object answer;
                    try {
                        answer = method.invoke(master, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    return answer instanceof PutGrant grant ? withFirstSliceOnAGhost(grant) : answer;
                });
    }

    private static PutGrant withFirstSliceOnAGhost(PutGrant grant) {
        ObjectMeta o = grant.object();
        List<SliceMeta> slices = new ArrayList<>(o.slices());
        SliceMeta first = slices.getFirst();
        slices.set(0, new SliceMeta(first.offset(), first.length(), List.of(new ReplicaRef("ghost", 0)), first.crcs()));
        ObjectMeta placed = new ObjectMeta(o.key(), o.size(), o.sliceSize(), o.checksumBlockSize(), slices, o.pinned(), o.createdAt(),
                o.replicas(), o.owner(), o.autoReplicas(), o.localCopies());
        return new PutGrant(grant.putId(), placed, grant.nodes(), grant.deadline(), grant.writer(), grant.lock(), grant.tickets(),
                grant.writeGrants());
    }

    /** Progress that counts each slice written into {@code slices}, and takes {@code millis} over each. */
    private static Progress countingSlowly(AtomicInteger slices, long millis) {
        return bytes -> {
            slices.incrementAndGet();
            sleep(millis);
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
