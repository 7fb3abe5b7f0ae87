package io.weightstore.jlama.serve;

import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Admission of generations: up to {@code maxConcurrent} run, up to {@code maxQueue} more wait in
 * arrival order (a fair semaphore hands out slots first come, first served), and a request beyond
 * that is turned away at once with a 429 rather than left to wait without bound.
 */
final class AdmissionQueue {
    private final int maxConcurrent;
    private final int maxQueue;
    private final Semaphore slots;
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();

    AdmissionQueue(int maxConcurrent, int maxQueue) {
        this.maxConcurrent = maxConcurrent;
        this.maxQueue = maxQueue;
        this.slots = new Semaphore(maxConcurrent, true);
    }

    /** A place in the queue; close it when the request is done, whether or not its turn came. */
    Ticket enter() {
        if (admitted.incrementAndGet() > maxConcurrent + maxQueue) {
            admitted.decrementAndGet();
            throw ApiError.queueFull("the server is busy: " + maxConcurrent + " generation(s) running and " + maxQueue
                    + " waiting, as many as it queues (--max-queue); retry later");
        }
        return new Ticket();
    }

    int running() {
        return running.get();
    }

    /** Requests admitted and waiting for a slot. */
    int waiting() {
        return Math.max(0, admitted.get() - running.get());
    }

    final class Ticket implements AutoCloseable {
        private boolean started;

        private Ticket() {}

        /** Waits until this request may generate. */
        void awaitTurn() throws InterruptedException {
            slots.acquire();
            started = true;
            running.incrementAndGet();
        }

        @Override
        public void close() {
            if (started) {
                running.decrementAndGet();
                slots.release();
            }
            admitted.decrementAndGet();
        }
    }
}
