package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A put cancelled by an interrupt, against a master over gRPC: its abort still goes out, so its room and key are free at once. */
class InterruptedPutTest {
    @TempDir
    Path tmp;

    @Test
    void anInterruptedPutIsAbortedAtOnceAndItsKeyCanBePutAgain() throws Exception {
        try (TestCluster cluster = new TestCluster(tmp, 1); StoreClient store = cluster.client(); Arena arena = Arena.ofShared()) {
            MemorySegment data = arena.allocate(16 * TestCluster.config().sliceSize());
            CountDownLatch firstSlice = new CountDownLatch(1);
            Progress slowly = new Progress() {
                @Override
                public void advanced(long bytes) {
                    firstSlice.countDown();
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            AtomicReference<IOException> failed = new AtomicReference<>();
            Thread putter = Thread.ofPlatform().start(() -> {
                try {
                    store.put("k", data, PutOptions.defaults(), slowly);
                } catch (IOException e) {
                    failed.set(e);
                }
            });
            assertThat(firstSlice.await(30, TimeUnit.SECONDS)).isTrue();
            putter.interrupt();
            putter.join(30_000);

            assertThat(failed.get()).as("the put was cancelled").isNotNull();
            assertThat(failed.get().getSuppressed()).as("nothing went wrong with the abort").isEmpty();
            assertThat(store.status().pendingPuts()).isZero();
            assertThat(store.put("k", new byte[10], PutOptions.defaults()).size()).isEqualTo(10);
        }
    }
}
