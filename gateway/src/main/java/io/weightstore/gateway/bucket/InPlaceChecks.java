package io.weightstore.gateway.bucket;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.pool.StitchedMapping;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Which objects, as stored now (an {@link ObjectMeta} names the version, its slices and their
 * copies), passed a check of all their bytes in place, in which copies on this host, and when. The
 * copies are part of it: the object may move between opening its files and recording the check, and
 * a check of the copies before the move says nothing of the copies after it. A check holds for
 * {@link #VALID}: the downloads of an object, each under a lease of its own, pay for one check of it
 * between them rather than one each, while a byte that goes bad in a pool later is caught within that
 * time.
 */
final class InPlaceChecks {
    /**
     * How long a passed check is taken as current. Checking a 2 GB file is a pass over 2 GB of memory
     * with the store's CRC32C, about as much CPU as sending it once; a file served over and over pays
     * it once every two minutes, not once per download, and a pool byte that rots is caught within
     * two minutes by the gateway (and by the nodes' scrubber, at its own pace).
     */
    static final Duration VALID = Duration.ofMinutes(2);

    private record Checked(ObjectMeta object, List<StitchedMapping.Piece> copies) {}

    private final ConcurrentMap<Checked, Long> passedAt = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;

    InPlaceChecks() {
        this(System::nanoTime);
    }

    /** Checks timed on {@code nanoClock} (nanoseconds, as {@link System#nanoTime}). */
    InPlaceChecks(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Whether {@code object} passed a check of {@code copies} less than {@link #VALID} ago. */
    boolean current(ObjectMeta object, List<StitchedMapping.Piece> copies) {
        Long at = passedAt.get(new Checked(object, copies));
        return at != null && nanoClock.getAsLong() - at < VALID.toNanos();
    }

    /** Records that {@code object} passed a check of {@code copies} now, and forgets the checks that ran out. */
    void passed(ObjectMeta object, List<StitchedMapping.Piece> copies) {
        long now = nanoClock.getAsLong();
        passedAt.values().removeIf(at -> now - at >= VALID.toNanos());
        passedAt.put(new Checked(object, copies), now);
    }
}
