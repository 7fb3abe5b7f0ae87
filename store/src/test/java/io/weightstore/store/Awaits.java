package io.weightstore.store;

import java.time.Duration;

/** Waiting on a condition rather than a fixed sleep: polls until it holds, fails naming it when time is up. */
public final class Awaits {
    /** A condition that may need I/O to decide. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Awaits() {}

    public static void until(Duration limit, String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + limit.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
