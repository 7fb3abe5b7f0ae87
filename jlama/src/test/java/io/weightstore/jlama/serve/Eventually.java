package io.weightstore.jlama.serve;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for what a server does on its own threads: a generation that stops, a log line written after an answer. */
final class Eventually {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private Eventually() {}

    static void holds(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met in " + PATIENCE.toSeconds() + " s");
            }
            Thread.sleep(10);
        }
    }
}
