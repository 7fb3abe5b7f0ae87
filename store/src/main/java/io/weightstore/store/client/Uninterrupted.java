package io.weightstore.store.client;

import io.weightstore.store.api.StoreException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A call to the master that must go out even from a thread being interrupted: the abort of a put or a
 * repair that the interrupt cancelled, which frees its room and key at once instead of at its
 * deadline, and the end of a read lease, which would otherwise hold off a delete until it ran out. A
 * blocking gRPC call made with the flag set gives up before it is sent, so the flag is cleared for the
 * call and set again after it.
 */
final class Uninterrupted {
    @FunctionalInterface
    interface MasterCall {
        void run() throws StoreException;
    }

    private Uninterrupted() {}

    static void run(MasterCall call) throws StoreException {
        boolean interrupted = Thread.interrupted();
        try {
            call.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * As {@link #run}, but a thread being interrupted waits for the call at most {@code bound}, and the
     * call goes on without it after: for a call that only saves waiting (a read lease ends by itself), so
     * that a cancel is not held up for the whole retry budget of a master group no master of which answers.
     */
    static void runWithin(Duration bound, MasterCall call) throws StoreException {
        if (!Thread.interrupted()) {
            call.run();
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().name("weightstore-uninterrupted").start(() -> {
            try {
                call.run();
                done.complete(null);
            } catch (StoreException | RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        try {
            done.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StoreException store) {
                throw store;
            }
            throw (RuntimeException) e.getCause();
        } catch (TimeoutException | InterruptedException e) {
            // It goes on by itself; the caller's interrupt is set again below either way.
        } finally {
            Thread.currentThread().interrupt();
        }
    }
}
