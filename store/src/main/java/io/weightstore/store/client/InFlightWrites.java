package io.weightstore.store.client;

/**
 * The slice writes of one put, so that a put that fails returns only once none of them runs: the
 * master frees a failed put's space at once, and a write still under way, or one that started
 * after, would land in whatever the next put is given there.
 */
final class InFlightWrites {
    private int running;
    private boolean stopped;

    /** Whether a write may start: false once the put has failed. A write that starts must {@link #end}. */
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

    /**
     * Lets no write start any more and waits for those running to end, through interrupts (each write
     * has its deadline); an interrupt that came meanwhile is kept for the caller.
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
