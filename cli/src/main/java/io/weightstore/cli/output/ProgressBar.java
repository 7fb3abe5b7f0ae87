package io.weightstore.cli.output;

import io.weightstore.store.api.Progress;
import io.weightstore.weights.ByteSizes;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar (bytes, GB/s, ETA) redrawn on stderr at most ten times a second. It stays
 * silent when stderr is not a terminal, so pipes and logs get no control characters. As a
 * {@link Progress} it takes the total when the work starts and deltas as it goes.
 */
public final class ProgressBar implements Progress, AutoCloseable {
    private static final long REDRAW_NANOS = 100_000_000L;
    private static final int WIDTH = 30;

    private final String label;
    private final PrintStream err;
    private final boolean enabled;
    private final long start = System.nanoTime();
    private long total;
    private long lastDraw;
    private long done;

    /** A bar whose total the work announces through {@link #started}. */
    public ProgressBar(String label) {
        this(label, 0, System.err, Terminal.stderr());
    }

    public ProgressBar(String label, long total) {
        this(label, total, System.err, Terminal.stderr());
    }

    ProgressBar(String label, long total, PrintStream err, boolean enabled) {
        this.label = label;
        this.total = total;
        this.err = err;
        this.enabled = enabled;
    }

    @Override
    public synchronized void started(long totalBytes) {
        total = totalBytes;
    }

    @Override
    public synchronized void advanced(long bytes) {
        done += bytes;
        long now = System.nanoTime();
        if (enabled && now - lastDraw >= REDRAW_NANOS) {
            lastDraw = now;
            draw(now);
        }
    }

    private void draw(long now) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        double rate = done / seconds;
        double fraction = total <= 0 ? 1.0 : Math.min(1.0, (double) done / total);
        int filled = (int) (fraction * WIDTH);
        String eta = rate > 0 && total > done ? String.format(Locale.ROOT, "%.0fs", (total - done) / rate) : "-";
        err.printf(Locale.ROOT, "\r%s [%s%s] %5.1f%% %s / %s  %.2f GB/s  ETA %s  ", label, "#".repeat(filled),
                " ".repeat(WIDTH - filled), fraction * 100, ByteSizes.format(done), ByteSizes.format(total), rate / 1e9, eta);
        err.flush();
    }

    @Override
    public synchronized void close() {
        if (enabled) {
            draw(System.nanoTime());
            err.println();
        }
    }
}
