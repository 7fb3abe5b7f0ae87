package io.weightstore.cli;

import java.time.Duration;

/** Waiting on a condition rather than a fixed sleep: polls until it holds, fails naming it when time is up. */
final class Awaits {
    /** A condition that may need I/O to decide. */
    @FunctionalInterface
    interface Condition {
        boolean holds() throws Exception;
    }

    private Awaits() {}

    static void until(Duration limit, String what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + limit.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
