package io.weightstore.store.client;

import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the read leases of a client's open readers before they run out, from one background thread:
 * those due together in one call to the master per {@link MasterApi#MAX_LEASES_PER_CALL}, so an engine
 * holding a checkpoint of many files renews them in a call rather than a call each.
 */
final class LeaseKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final MasterApi master;
    private final Duration leaseDuration;
    private final Set<ObjectReader> open = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("store-leases").factory());

    LeaseKeeper(MasterApi master, Duration leaseDuration) {
        this.master = master;
        this.leaseDuration = leaseDuration;
        long period = Math.max(25, Math.min(1000, leaseDuration.toMillis() / 4));
        timer.scheduleWithFixedDelay(this::renewDue, period, period, TimeUnit.MILLISECONDS);
    }

    /** One round of the timer: a task that throws is never run again, and every open reader would lose its lease. */
    private void renewDue() {
        try {
            renew(open, System.currentTimeMillis());
        } catch (RuntimeException e) {
            log.error("renewing read leases failed (will retry): {}", e.getMessage(), e);
        }
    }

    void track(ObjectReader reader) {
        open.add(reader);
    }

    void untrack(ObjectReader reader) {
        open.remove(reader);
    }

    /** A reader whose lease is due, and where its object was when it was found due. */
    private record Due(ObjectReader reader, Located placement) {}

    /** Renews the leases of those of {@code readers} that are due by {@code nowMillis}. */
    void renew(Collection<ObjectReader> readers, long nowMillis) {
        List<Due> due = new ArrayList<>();
        for (ObjectReader reader : readers) {
            Located current = reader.dueForRenewal(nowMillis);
            if (current != null) {
                due.add(new Due(reader, current));
            }
        }
        for (List<Due> some : ObjectReader.perCall(due)) {
            List<HeldLease> leases = some.stream().map(d -> new HeldLease(d.reader().key(), d.placement().lease().id())).toList();
            List<Optional<Lease>> renewed;
            try {
                renewed = master.renewLeases(leases, leaseDuration);
            } catch (StoreException e) {
                log.warn("could not renew {} read leases, from {} on ({}); will retry", leases.size(), leases.getFirst().key(),
                        e.getMessage());
                continue;
            }
            for (int i = 0; i < some.size(); i++) {
                some.get(i).reader().renewed(some.get(i).placement(), renewed.get(i));
            }
        }
    }

    /** Closes every reader still open, ending their leases together. */
    @Override
    public void close() {
        timer.shutdownNow();
        ObjectReader.closeAll(Set.copyOf(open));
    }
}
