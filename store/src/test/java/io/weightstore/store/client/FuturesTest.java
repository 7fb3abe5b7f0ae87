package io.weightstore.store.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Waiting on background work, alone or beside other waiters, when the waiting thread is interrupted. */
class FuturesTest {
    /** A thread waiting on {@code future} through {@code await}, keeping what it got or what it threw. */
    private static Thread waiting(CompletableFuture<String> future, boolean shared, AtomicReference<Object> outcome) {
        return Thread.ofPlatform().start(() -> {
            try {
                outcome.set(shared ? Futures.awaitShared(future) : Futures.await(future));
            } catch (Exception e) {
                outcome.set(e);
            }
        });
    }

    private static void awaitWaiting(Thread thread) throws InterruptedException {
        while (thread.getState() != Thread.State.WAITING) {
            assertThat(thread.isAlive()).as("a waiter that stopped before it waited").isTrue();
            Thread.sleep(1);
        }
    }

    @Test
    void anInterruptedWaiterOfASharedFutureLeavesItRunningForTheOthers() throws Exception {
        CompletableFuture<String> batch = new CompletableFuture<>();
        AtomicReference<Object> interrupted = new AtomicReference<>();
        AtomicReference<Object> other = new AtomicReference<>();
        Thread leaving = waiting(batch, true, interrupted);
        Thread staying = waiting(batch, true, other);
        awaitWaiting(leaving);
        awaitWaiting(staying);

        leaving.interrupt();
        leaving.join(TimeUnit.SECONDS.toMillis(10));
        batch.complete("tensors");
        staying.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(interrupted.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(batch.isCancelled()).isFalse();
        assertThat(other.get()).isEqualTo("tensors");
    }

    @Test
    void anInterruptedSoleWaiterCancelsWhatItWaitedFor() throws Exception {
        CompletableFuture<String> read = new CompletableFuture<>();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = waiting(read, false, outcome);
        awaitWaiting(waiter);

        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(10));

        assertThat(outcome.get()).isInstanceOf(InterruptedIOException.class);
        assertThat(read.isCancelled()).isTrue();
    }
}
