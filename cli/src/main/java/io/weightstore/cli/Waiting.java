package io.weightstore.cli;

import io.weightstore.cli.output.StatusLine;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Model.CommandSpec;

/** Polls the master until some replica work is done, showing how it stands, within a deadline. */
final class Waiting {
    private static final Duration POLL = Duration.ofMillis(500);

    /** One look at the work: what was seen, whether it is done, and a line saying how it stands. */
    record Look<T>(T seen, boolean done, String line) {}

    @FunctionalInterface
    interface Probe<T> {
        Look<T> look() throws Exception;
    }

    private Waiting() {}

    /** Refuses {@code --timeout} without {@code --wait}, which it bounds: alone it would be ignored without a word. */
    static void checkTimeoutWaits(CommandSpec spec, boolean await) {
        if (!await && timeoutGiven(spec)) {
            throw new IllegalArgumentException("--timeout bounds --wait, which was not given: add --wait, or leave --timeout out");
        }
    }

    /** Whether the command line gave {@code --timeout}, rather than its default standing. */
    static boolean timeoutGiven(CommandSpec spec) {
        return spec.commandLine().getParseResult().hasMatchedOption("--timeout");
    }

    /** Returns what the last look saw, once it is done; a {@link TimeoutException} naming how it stood when {@code timeout} passes. */
    static <T> T until(String what, Duration timeout, Probe<T> probe) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (StatusLine line = new StatusLine()) {
            while (true) {
                Look<T> look = probe.look();
                line.show(what + ": " + look.line());
                if (look.done()) {
                    return look.seen();
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new TimeoutException(what + " not done after " + DurationConverter.shown(timeout)
                            + " (--timeout); it goes on in the background: " + look.line());
                }
                Thread.sleep(POLL);
            }
        }
    }
}
