package io.weightstore.store.client.access;

import java.io.InterruptedIOException;
import java.time.Duration;

/**
 * The pauses between asks of nodes that answered BUSY (every connection they allow at work, as when
 * many engines load at once): doubling from {@link #FIRST_MILLIS} to {@link #MAX_MILLIS}, for up to
 * a deadline, after which the node counts as unavailable.
 */
public final class BusyPauses {
    static final long FIRST_MILLIS = 10;
    static final long MAX_MILLIS = 500;

    private final long giveUpNanos;
    private long nextMillis = FIRST_MILLIS;

    public BusyPauses(Duration budget) {
        this.giveUpNanos = System.nanoTime() + budget.toNanos();
    }

    /** Waits the next pause; false, at once, when it would end past the deadline. */
    public boolean pause(String what) throws InterruptedIOException {
        if (System.nanoTime() + nextMillis * 1_000_000 - giveUpNanos > 0) {
            return false;
        }
        try {
            Thread.sleep(nextMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(what + " interrupted while its nodes were busy");
        }
        nextMillis = Math.min(2 * nextMillis, MAX_MILLIS);
        return true;
    }
}
