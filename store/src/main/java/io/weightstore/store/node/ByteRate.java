package io.weightstore.store.node;

/**
 * Paces work to a number of bytes a second: each caller reserves the time its bytes take at that
 * rate, after the reservations before it, and sleeps until its turn. Background work (copies from
 * other nodes, scrubbing) goes through one, so it never takes more than its share of the node's
 * network or memory bandwidth, however many pieces are in flight. Thread-safe.
 */
final class ByteRate {
    private long bytesPerSecond;
    private long nextFreeNanos = System.nanoTime();

    ByteRate(long bytesPerSecond) {
        setRate(bytesPerSecond);
    }

    synchronized void setRate(long value) {
        if (value < 1) {
            throw new IllegalArgumentException("a rate must be at least 1 byte a second: bytesPerSecond=" + value);
        }
        bytesPerSecond = value;
    }

    /** Waits until {@code bytes} may go. */
    void acquire(long bytes) throws InterruptedException {
        long waitNanos;
        synchronized (this) {
            long now = System.nanoTime();
            long start = Math.max(now, nextFreeNanos);
            nextFreeNanos = start + (long) (bytes * 1e9 / bytesPerSecond);
            waitNanos = start - now;
        }
        if (waitNanos > 0) {
            Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
        }
    }
}
