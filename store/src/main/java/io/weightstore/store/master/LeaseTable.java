package io.weightstore.store.master;

import io.weightstore.store.api.Lease;
import io.weightstore.store.api.StoreException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Read leases by object key. A leased object is not removed without force and never evicted.
 * Not thread-safe; the master serialises access.
 */
final class LeaseTable {
    private final Map<String, Map<Long, Long>> byKey = new HashMap<>();
    /** Seeded from the clock, so ids a client holds from before a master restart do not name new leases. */
    private long nextId;

    LeaseTable(long now) {
        this.nextId = now * 1000;
    }

    Lease grant(String key, long now, long durationMs) {
        long id = ++nextId;
        long expires = now + durationMs;
        byKey.computeIfAbsent(key, k -> new HashMap<>()).put(id, expires);
        return new Lease(id, Instant.ofEpochMilli(expires));
    }

    Lease renew(String key, long id, long now, long durationMs) throws StoreException {
        Map<Long, Long> held = byKey.get(key);
        Long expires = held == null ? null : held.get(id);
        if (expires == null || expires < now) {
            throw new StoreException(StoreException.Code.NOT_FOUND, "lease " + id + " on " + key + " has expired or was released");
        }
        held.put(id, now + durationMs);
        return new Lease(id, Instant.ofEpochMilli(now + durationMs));
    }

    void release(String key, long id) {
        Map<Long, Long> held = byKey.get(key);
        if (held != null) {
            held.remove(id);
            if (held.isEmpty()) {
                byKey.remove(key);
            }
        }
    }

    boolean isLeased(String key, long now) {
        return holders(key, now) > 0;
    }

    /** Live leases on {@code key}; expired ones are dropped on the way. */
    int holders(String key, long now) {
        Map<Long, Long> held = byKey.get(key);
        if (held == null) {
            return 0;
        }
        held.values().removeIf(expires -> expires < now);
        if (held.isEmpty()) {
            byKey.remove(key);
            return 0;
        }
        return held.size();
    }

    /** When the last live lease on {@code key} ends. */
    OptionalLong latestExpiry(String key) {
        Map<Long, Long> held = byKey.get(key);
        return held == null ? OptionalLong.empty() : held.values().stream().mapToLong(Long::longValue).max();
    }

    void forget(String key) {
        byKey.remove(key);
    }
}
