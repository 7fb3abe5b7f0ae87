package io.weightstore.store.client;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Renews the read leases of a client's open readers before they run out, from one background thread. */
final class LeaseKeeper implements AutoCloseable {
    private final Set<ObjectReader> open = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("store-leases").factory());

    LeaseKeeper(Duration leaseDuration) {
        long period = Math.max(25, Math.min(1000, leaseDuration.toMillis() / 4));
        timer.scheduleWithFixedDelay(this::renewDue, period, period, TimeUnit.MILLISECONDS);
    }

    void track(ObjectReader reader) {
        open.add(reader);
    }

    void untrack(ObjectReader reader) {
        open.remove(reader);
    }

    private void renewDue() {
        long now = System.currentTimeMillis();
        for (ObjectReader reader : open) {
            reader.renewIfDue(now);
        }
    }

    /** Closes every reader still open, ending its lease. */
    @Override
    public void close() {
        timer.shutdownNow();
        for (ObjectReader reader : Set.copyOf(open)) {
            reader.close();
        }
    }
}
