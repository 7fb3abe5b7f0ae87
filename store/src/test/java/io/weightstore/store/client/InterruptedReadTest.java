package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Metrics;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read spread over the client's workers returns only once none of its pieces is being written:
 * its caller reuses the destination (a loader's stream buffers) the moment it returns. An interrupt
 * cancels the read's futures, and a cancelled future reports done while its piece is still copied.
 */
class InterruptedReadTest {
    private static final long SIZE = 192L << 20;
    private static final long PIECE = 24L << 20;

    @TempDir
    Path tmp;

    @Test
    void anInterruptedReadReturnsOnlyOnceNoneOfItsPiecesIsStillWritten() throws Exception {
        ClientOptions options = ClientOptions.defaults().withConnections(4).withMaxPieceBytes(PIECE);
        try (StoreClient store = EmbeddedStore.open(tmp, 256L << 20, options); Arena arena = Arena.ofShared()) {
            store.put("k", arena.allocate(SIZE), PutOptions.defaults());
            int interrupted = interruptedReads(store, arena.allocate(SIZE), () -> assertThat(workersStillReading())
                    .as("store-io threads in a piece of the read it returned from").isEmpty());
            assertThat(interrupted).as("reads that an interrupt ended").isPositive();
        }
    }

    @Test
    void anInterruptedReadOverSocketsBlamesNoNode() throws Exception {
        long size = 48L << 20;
        try (TestCluster cluster = new TestCluster(tmp.resolve("cluster"), 2); Arena arena = Arena.ofShared()) {
            StoreClient store = cluster.client(ClientOptions.defaults().withSameHostPath(false).withConnections(4)
                    .withMaxPieceBytes(TestCluster.SLICE));
            store.put("k", arena.allocate(size), PutOptions.defaults().withReplicas(2));
            MemorySegment dst = arena.allocate(size);
            assertThat(interruptedReads(store, dst, () -> {})).as("reads that an interrupt ended").isPositive();
            assertThat(Metrics.value(store.metrics().registry(), "weightstore_client_replica_failures", "reason", "unreachable"))
                    .as("replica reads counted as a node unreachable").isZero();
            try (ObjectReader reader = store.open("k")) {
                store.read(List.of(new Read.Ranges(reader, List.of(new Range(0, size)), dst)));
            }
        }
    }

    /** Reads all of {@code k} into {@code dst} twenty times, interrupted 2 to 6 ms in; returns how many the interrupt ended. */
    private static int interruptedReads(StoreClient store, MemorySegment dst, Runnable afterEach) throws Exception {
        int interrupted = 0;
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ObjectReader reader = store.open("k")) {
                Thread caller = Thread.currentThread();
                CompletableFuture<Void> interrupt = CompletableFuture.runAsync(caller::interrupt,
                        CompletableFuture.delayedExecutor(2 + attempt % 5, TimeUnit.MILLISECONDS));
                try {
                    store.read(List.of(new Read.Ranges(reader, List.of(new Range(0, dst.byteSize())), dst)));
                } catch (InterruptedIOException e) {
                    interrupted++;
                    afterEach.run();
                } finally {
                    // A read that ended first must not leave the interrupt to land on what runs next.
                    interrupt.join();
                    Thread.interrupted();
                }
            }
        }
        return interrupted;
    }

    private static List<String> workersStillReading() {
        List<String> busy = new ArrayList<>();
        for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
            for (StackTraceElement frame : thread.getValue()) {
                if (frame.getClassName().equals(ReplicaReader.class.getName()) && frame.getMethodName().equals("run")) {
                    busy.add(thread.getKey().getName());
                    break;
                }
            }
        }
        return busy;
    }
}
