package io.weightstore.store.client;

/**
 * The tasks of one operation on the client's workers (the slice writes of a put, the pieces of a
 * read), so that the operation returns only once none of them runs: a put that fails frees its
 * space, which the next put is given, and a read's caller reuses its destination. A future does
 * not say this: one cancelled reports done while its task still runs.
 */
final class RunningTasks {
    private int running;
    private boolean stopped;

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
