package io.weightstore.store.logging;

import java.time.Duration;
import org.slf4j.Logger;

/**
 * Warnings about what peers send (garbage, refused handshakes) at a bounded rate: a port scanner or
 * a misconfigured client must not fill the disk with the same line. At most {@code burst} lines per
 * window; the next line after a quiet one says how many were left out.
 */
public final class RateLimitedLog {
    private final Logger log;
    private final int burst;
    private final long windowNanos;
    private long windowStart = Long.MIN_VALUE;
    private int written;
    private long dropped;

    public RateLimitedLog(Logger log, int burst, Duration window) {
        if (burst < 1 || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("need burst >= 1 and a positive window: burst=" + burst + " window=" + window);
        }
        this.log = log;
        this.burst = burst;
        this.windowNanos = window.toNanos();
    }

    /** One WARN line, unless this window's burst is spent; never a stack trace. */
    public void warn(String format, Object... arguments) {
        long left;
        synchronized (this) {
            long now = System.nanoTime();
            if (windowStart == Long.MIN_VALUE || now - windowStart >= windowNanos) {
                windowStart = now;
                written = 0;
            }
            if (written >= burst) {
                dropped++;
                return;
            }
            written++;
            left = dropped;
            dropped = 0;
        }
        if (left > 0) {
            log.warn("({} similar warnings left out)", left);
        }
        log.warn(format, arguments);
    }

    /** Lines left out so far and not yet reported. */
    public synchronized long dropped() {
        return dropped;
    }
}
