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

    private int running;
    private boolean stopped;

    /**
     * Runs {@code tasks} on {@code workers}. On the first failure the tasks not started are skipped;
     * returns, or throws that failure, only once none runs, whatever ended the wait (an interrupt,
     * which cancels futures whose tasks still run, or workers shut down under it).
     */
    static void runAll(ExecutorService workers, List<Task> tasks) throws IOException {
        RunningTasks running = new RunningTasks();
        Exception failure = null;
        try {
            List<Future<Void>> futures = new ArrayList<>(tasks.size());
            for (Task task : tasks) {
                futures.add(workers.submit(() -> {
                    if (!running.begin()) {
                        return null;
                    }
                    try {
                        task.run();
                    } catch (IOException | RuntimeException e) {
                        running.stop();
                        throw e;
                    } finally {
                        running.end();
                    }
                    return null;
                }));
            }
            for (Future<Void> future : futures) {
                try {
                    Futures.await(future);
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
    }

    /** Whether a task may start: false once the operation stopped. A task that starts must {@link #end}. */
    synchronized boolean begin() {
        if (stopped) {
            return false;
        }
        running++;
        return true;
    }

    synchronized void end() {
        running--;
        notifyAll();
    }

    /** Lets no task start any more. */
    synchronized void stop() {
        stopped = true;
    }

    /**
     * Lets no task start any more and waits for those running to end, through interrupts (each has
     * its deadline); an interrupt that came meanwhile is kept for the caller.
     */
    synchronized void stopAndAwait() {
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
