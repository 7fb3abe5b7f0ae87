package io.weightstore.store.master;

import static io.weightstore.store.master.ClockedMasters.SLICE;
import static io.weightstore.store.master.ClockedMasters.config;
import static io.weightstore.store.master.ClockedMasters.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreStatus;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node is alive when it reports: its heartbeat counts from when it reached the master, however long
 * a stalled metadata write (etcd or a disk under load) keeps it waiting for the master's monitor.
 */
class HeartbeatArrivalTest {
    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_000_000);

    @Test
    void aHeartbeatWaitingBehindAStalledWriteCountsFromItsArrival() throws Exception {
        StallsOneBatch store = new StallsOneBatch(RocksMetadataStore.open(dir));
        MasterCore master = MasterCore.open(store, config(), now::get);
        try {
            master.registerNode(node("n1"));
            long deadline = config().nodeDeadline().toMillis();
            store.arm();
            CompletableFuture<?> write = inThread(() -> master.putStart("stalled", SLICE, PutOptions.defaults()));
            store.awaitStalled();

            now.addAndGet(deadline - 1);
            long arrived = now.get();
            CompletableFuture<?> report = blockedOnTheMaster(() -> master.heartbeat(NodeReport.alive("n1")));
            now.addAndGet(deadline - 1); // the registration is past the deadline now; the waiting report is not
            CompletableFuture<StoreStatus> look = blockedOnTheMaster(master::status);

            store.release();
            write.get(10, TimeUnit.SECONDS);
            report.get(10, TimeUnit.SECONDS);
            assertThat(n1(look.get(10, TimeUnit.SECONDS)).up())
                    .as("a look at the nodes, whichever of it and the waiting report got the monitor first, finds n1 up").isTrue();
            assertThat(n1(master.status()).lastHeartbeat()).isEqualTo(Instant.ofEpochMilli(arrived));
        } finally {
            master.close();
        }
    }

    private static NodeStatus n1(StoreStatus status) {
        return status.nodes().stream().filter(n -> n.nodeId().equals("n1")).findFirst().orElseThrow();
    }

    private static <T> CompletableFuture<T> inThread(ThrowingSupplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            try {
                result.complete(call.get());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Starts {@code call} in a thread of its own and returns once that thread waits for the master's monitor. */
    private static <T> CompletableFuture<T> blockedOnTheMaster(ThrowingSupplier<T> call) throws InterruptedException {
        CompletableFuture<Thread> caller = new CompletableFuture<>();
        CompletableFuture<T> result = inThread(() -> {
            caller.complete(Thread.currentThread());
            return call.get();
        });
        Thread thread = caller.join();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (thread.getState() != Thread.State.BLOCKED) {
            assertThat(System.nanoTime()).as("%s blocked on the master's monitor within 10 s", thread).isLessThan(until);
            Thread.sleep(1);
        }
        return result;
    }

    @FunctionalInterface
    private interface ThrowingSupplier<T> {
        T get() throws Exception;
    }
}
