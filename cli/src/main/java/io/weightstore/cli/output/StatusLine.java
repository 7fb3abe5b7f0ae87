package io.weightstore.cli.output;

import java.io.PrintStream;

/**
 * One line on stderr, redrawn in place while some work that has no fixed total goes on (copies the
 * master makes come and go). Silent when stderr is not a terminal, as {@link ProgressBar} is.
 */
public final class StatusLine implements AutoCloseable {
    private final PrintStream err;
    private final boolean enabled;
    private int lastLength;
    private boolean drawn;

    public StatusLine() {
        this(System.err, Terminal.stderr());
    }

    StatusLine(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    public synchronized void show(String text) {
        if (enabled) {
            // Pads over what a longer previous line left.
            err.print("\r" + text + " ".repeat(Math.max(0, lastLength - text.length())));
            err.flush();
            lastLength = text.length();
            drawn = true;
        }
    }

    @Override
    public synchronized void close() {
        if (enabled && drawn) {
            err.println();
        }
    }
}
