package io.weightstore.store.api;

import java.time.Duration;

/**
 * How long a server that relies on its master goes on counting itself ready without an answer from it: {@link #INTERVALS}
 * of the intervals it asks the master at. A node asks at the heartbeat interval, and the master counts a node down after
 * as many heartbeats missed (a 5 s deadline for a 1 s heartbeat); a gateway asks at {@link #DEFAULT_INTERVAL}. Both
 * stop taking traffic by the same rule, once the master has been silent as long as it would take to give up on a node.
 *
 * @param interval how often the server asks its master
 */
public record MasterSilence(Duration interval) {
    /** Intervals without an answer after which the server is no longer ready. */
    public static final int INTERVALS = 5;
    /** The master's default heartbeat interval, and how often a server with no heartbeat of its own asks. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

    /** The longest silence that still counts as an answering master. */
    public Duration limit() {
        return interval.multipliedBy(INTERVALS);
    }

    /** Whether a master that last answered at {@code lastAnswerNanos} still counts as answering at {@code nowNanos} (System.nanoTime). */
    public boolean answered(long lastAnswerNanos, long nowNanos) {
        return nowNanos - lastAnswerNanos <= limit().toNanos();
    }
}
