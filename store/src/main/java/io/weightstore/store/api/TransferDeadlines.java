package io.weightstore.store.api;

import java.time.Duration;

/**
 * How long a data-plane exchange may take: a fixed allowance for the round trip, plus the bytes at
 * the slowest rate still worth waiting for. A peer slower than that is treated as gone, and the
 * read moves to another replica.
 *
 * @param base allowance for connecting, a handshake, or a request with no payload
 * @param minBytesPerSecond the rate below which a transfer counts as stalled
 * @param idle how long a node keeps a connection that sends no request
 */
public record TransferDeadlines(Duration base, long minBytesPerSecond, Duration idle) {
    public TransferDeadlines {
        if (base.toMillis() < 1 || minBytesPerSecond < 1 || idle.toMillis() < 1) {
            throw new IllegalArgumentException("deadlines must be positive: base=" + base + " minBytesPerSecond=" + minBytesPerSecond
                    + " idle=" + idle);
        }
    }

    /** 5 s plus the bytes at 32 MB/s; idle connections closed after a minute. */
    public static TransferDeadlines defaults() {
        return new TransferDeadlines(Duration.ofSeconds(5), 32_000_000, Duration.ofMinutes(1));
    }

    /** The deadline of an exchange that moves {@code bytes}. */
    public Duration forBytes(long bytes) {
        // In doubles: bytes times a billion overflows a long above 9 GB; the cast saturates instead.
        return base.plusNanos((long) (bytes * 1e9 / minBytesPerSecond));
    }
}
