package io.weightstore.store.concurrent;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Waits bounded by a deadline (a {@link System#nanoTime} value) that go on through interrupts and
 * keep them for the caller: a close waits for the threads that write into memory before it frees
 * that memory (a node's pool, a tensor stream's buffers), whoever calls it and however it was interrupted.
 */
public final class DeadlineWait {
    /** One bounded wait, given the nanoseconds left; true when what it waits for is done. */
    @FunctionalInterface
    private interface Wait {
        boolean await(long nanos) throws InterruptedException;
    }

    private DeadlineWait() {}

    /** Whether {@code thread} ended, or never started, by {@code deadline}. */
    public static boolean join(Thread thread, long deadline) {
        return thread.getState() == Thread.State.NEW || until(deadline, nanos -> thread.join(Duration.ofNanos(Math.max(1, nanos))));
    }

    /** Whether every task of {@code workers}, shut down, ended by {@code deadline}. */
    public static boolean termination(ExecutorService workers, long deadline) {
        return until(deadline, nanos -> workers.awaitTermination(Math.max(0, nanos), TimeUnit.NANOSECONDS));
    }

    /** Whether {@code latch} reached zero by {@code deadline}. */
    public static boolean await(CountDownLatch latch, long deadline) {
        return until(deadline, nanos -> latch.await(Math.max(0, nanos), TimeUnit.NANOSECONDS));
    }

    private static boolean until(long deadline, Wait wait) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return wait.await(deadline - System.nanoTime());
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
