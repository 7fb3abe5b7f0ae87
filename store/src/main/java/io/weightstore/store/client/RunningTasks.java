package io.weightstore.store.client;

import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/**
 * The tasks of one operation on the client's workers (the slice writes of a put, the pieces of a
 * read), so that the operation returns only once none of them runs: a put that fails frees its
 * space, which the next put is given, and a read's caller reuses its destination. A future does
 * not say this: one cancelled reports done while its task still runs.
 */
final class RunningTasks {
    /** One task of an operation. */
    @FunctionalInterface
    interface Task {
        void run() throws IOException;
    }

    /** One task of an operation that gives a result. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws IOException;
    }

    private int running;
    private boolean stopped;

    private RunningTasks() {}

    /** As {@link #callAll}, for tasks with no result. */
    static void runAll(ExecutorService workers, List<Task> tasks) throws IOException {
        List<Call<Void>> calls = new ArrayList<>(tasks.size());
        for (Task task : tasks) {
            calls.add(() -> {
                task.run();
                return null;
            });
        }
        callAll(workers, calls);
    }

    /**
     * Runs {@code calls} on {@code workers} and returns their results in order. On the first failure
     * the calls not started are skipped; returns, or throws that failure, only once none runs,
     * whatever ended the wait (an interrupt, which cancels futures whose calls still run, or workers
     * shut down under it).
     */
    static <T> List<T> callAll(ExecutorService workers, List<Call<T>> calls) throws IOException {
        RunningTasks running = new RunningTasks();
        List<T> results = new ArrayList<>(calls.size());
        Exception failure = null;
        try {
            List<Future<T>> futures = new ArrayList<>(calls.size());
            for (Call<T> call : calls) {
                futures.add(workers.submit(() -> {
                    if (!running.begin()) {
                        return null;
                    }
                    try {
                        return call.call();
                    } catch (IOException | RuntimeException | Error e) {
                        running.stop();
                        throw e;
                    } finally {
                        running.end();
                    }
                }));
            }
            for (Future<T> future : futures) {
                try {
                    results.add(Futures.await(future));
                } catch (IOException | RuntimeException e) {
                    running.stop();
                    failure = failure == null ? e : failure;
                }
            }
        } catch (RuntimeException rejected) {
            failure = rejected;
        } finally {
            running.stopAndAwait();
        }
        if (failure instanceof CancellationException || failure instanceof RejectedExecutionException) {
            // Only closing the client cancels its queued tasks or refuses new ones.
            throw new StoreException(StoreException.Code.UNAVAILABLE, "the store client was closed while this operation ran", failure);
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure != null) {
            throw (RuntimeException) failure;
        }
        return results;
    }

    /** Whether a task may start: false once the operation stopped. A task that starts must {@link #end}. */
    private synchronized boolean begin() {
        if (stopped) {
            return false;
        }
        running++;
        return true;
    }

    private synchronized void end() {
        running--;
        notifyAll();
    }

    /** Lets no task start any more. */
    private synchronized void stop() {
        stopped = true;
    }

    /**
     * Lets no task start any more and waits for those running to end, through interrupts (each has
     * its deadline); an interrupt that came meanwhile is kept for the caller.
     */
    private synchronized void stopAndAwait() {
        stopped = true;
        boolean interrupted = false;
        while (running > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
