package io.weightstore.store.api;

import java.time.Duration;

/**
 * How long a data-plane exchange may take: a fixed allowance for the round trip, plus the bytes at
 * the slowest rate still worth waiting for; and within that, never longer than {@code base} without
 * a byte moving. A peer that stops is cut after {@code base}, one that crawls below the rate is cut
 * at the end, and either way the read moves to another replica.
 *
 * @param base allowance for connecting, a handshake, or a request with no payload; also the longest
 *     a transfer may go without moving a byte
 * @param minBytesPerSecond the average rate below which a transfer counts as too slow
 * @param idle how long a node keeps a connection that sends no request
 */
public record TransferDeadlines(Duration base, long minBytesPerSecond, Duration idle) {
    private static final long MAX_TRANSFER_NANOS = Duration.ofDays(365).toNanos();

    public TransferDeadlines {
        if (base.toMillis() < 1 || minBytesPerSecond < 1 || idle.toMillis() < 1) {
            throw new IllegalArgumentException("deadlines must be positive: base=" + base + " minBytesPerSecond=" + minBytesPerSecond
                    + " idle=" + idle);
        }
    }

    /**
     * 5 s plus the bytes at 1 MB/s, and 5 s without progress; idle connections closed after a minute.
     * The rate is low because the stall window, not the rate, is what cuts a frozen peer, and a live
     * stream can be slow: an import writes many slices at once, each getting a share of a node's
     * TLS decryption, which we measured at 3 MB/s per slice on a loaded two-core machine.
     */
    public static TransferDeadlines defaults() {
        return new TransferDeadlines(Duration.ofSeconds(5), 1_000_000, Duration.ofMinutes(1));
    }

    /** The longest an exchange may go without moving a byte. */
    public Duration stall() {
        return base;
    }

    /**
     * The deadline of an exchange that moves {@code bytes}, at most a year: a longer one means nothing,
     * and the timer counts in nanoseconds of a long. A negative count is a sum of lengths that
     * overflowed, so it gets the most.
     */
    public Duration forBytes(long bytes) {
        // In doubles: bytes times a billion overflows a long above 9 GB.
        double nanos = bytes < 0 ? MAX_TRANSFER_NANOS : Math.min(MAX_TRANSFER_NANOS, bytes * 1e9 / minBytesPerSecond);
        return base.plusNanos((long) nanos);
    }
}
