package io.weightstore.store.master;

import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Read leases by object key. A leased object is not removed without force and never evicted.
 * Expired leases stay until {@link #dropExpired} takes them out, so the master can delete their
 * records in the same pass. Not thread-safe; the master serialises access.
 */
final class LeaseTable {
    /** One lease: when it ends, and who took it. */
    private record Held(long expires, String holder) {}

    private static final String REMOVED = "\u0000removed version ";

    private final Map<String, Map<Long, Held>> byKey = new HashMap<>();
    /** Seeded from the clock, so ids a client holds from before a master restart do not name new leases. */
    private long nextId;

    LeaseTable(long now) {
        this.nextId = now * 1000;
    }

    /** Takes back a lease recorded by an earlier master; ids handed out later stay above it. */
    void recover(ReadLease lease) {
        byKey.computeIfAbsent(lease.key(), k -> new HashMap<>()).put(lease.leaseId(), new Held(lease.expiresAt().toEpochMilli(),
                lease.holder()));
        idsAbove(lease.leaseId());
    }

    /** Keeps the ids handed out from now on above {@code id}. */
    void idsAbove(long id) {
        nextId = Math.max(nextId, id);
    }

    Lease grant(String key, long now, long durationMs, String holder) {
        long id = ++nextId;
        long expires = now + durationMs;
        byKey.computeIfAbsent(key, k -> new HashMap<>()).put(id, new Held(expires, holder));
        return new Lease(id, Instant.ofEpochMilli(expires));
    }

    /**
     * The lease {@code id} on {@code key} as {@code caller} may renew it, until {@code durationMs} from now; the
     * table changes only at {@link #extend}, once the master has recorded the new expiry.
     */
    Lease renewal(String key, long id, long now, long durationMs, String caller) throws StoreException {
        Map<Long, Held> held = byKey.get(key);
        Held lease = held == null ? null : held.get(id);
        if (lease == null || lease.expires() < now) {
            throw new StoreException(StoreException.Code.NOT_FOUND, "lease " + id + " on " + key + " has expired or was released");
        }
        requireHolder(key, id, lease, caller);
        return new Lease(id, Instant.ofEpochMilli(now + durationMs));
    }

    /** Extends a lease on {@code key} as {@link #renewal} allowed. */
    void extend(String key, Lease renewed) {
        Map<Long, Held> held = byKey.get(key);
        Held lease = held == null ? null : held.get(renewed.id());
        if (lease != null) {
            held.put(renewed.id(), new Held(renewed.expiresAt().toEpochMilli(), lease.holder()));
        }
    }

    /** True when the lease was there to release. */
    boolean release(String key, long id, String caller) throws StoreException {
        String holding = holding(key, id);
        if (holding == null) {
            return false;
        }
        Map<Long, Held> held = byKey.get(holding);
        requireHolder(key, id, held.get(id), caller);
        held.remove(id);
        if (held.isEmpty()) {
            byKey.remove(holding);
        }
        return true;
    }

    /**
     * The key lease {@code id} on {@code key} is held under: {@code key}, or, once its object was removed, the removed
     * version's key ({@link #removedKey}), under which its reader, who knows only the object's, releases it too. Null when
     * there is no such lease.
     */
    private String holding(String key, long id) {
        Map<Long, Held> held = byKey.get(key);
        if (held != null && held.containsKey(id)) {
            return key;
        }
        String removed = key + REMOVED;
        return byKey.entrySet().stream().filter(e -> e.getKey().startsWith(removed) && e.getValue().containsKey(id))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /**
     * The key the leases of {@code key}'s object of {@code version} move to when it is removed under them ({@link #move}):
     * its own, past a NUL, which no object key holds, and the version.
     */
    static String removedKey(String key, Instant version) {
        return key + REMOVED + version.toEpochMilli();
    }

    /**
     * Only who took a lease may end or extend it: ids are sequential, and another caller releasing one would
     * pull the object from under its reader without the force that only an admin has. A lease taken on an
     * insecure cluster names no one, as does one recorded before leases named their holder.
     */
    private static void requireHolder(String key, long id, Held lease, String caller) throws StoreException {
        if (!Holders.allows(lease.holder(), caller)) {
            throw new StoreException(StoreException.Code.PERMISSION_DENIED, "lease " + id + " on " + key + " was taken by "
                    + lease.holder() + "; " + Holders.named(caller) + " may not renew or release it");
        }
    }

    boolean isLeased(String key, long now) {
        return holders(key, now) > 0;
    }

    /** Live leases on {@code key}. */
    int holders(String key, long now) {
        Map<Long, Held> held = byKey.get(key);
        return held == null ? 0 : (int) held.values().stream().filter(lease -> lease.expires() >= now).count();
    }

    /** Live leases on every key. */
    int active(long now) {
        int live = 0;
        for (Map<Long, Held> held : byKey.values()) {
            for (Held lease : held.values()) {
                if (lease.expires() >= now) {
                    live++;
                }
            }
        }
        return live;
    }

    /** The newest lease id handed out so far: leases taken later have larger ids. */
    long lastId() {
        return nextId;
    }

    /** Whether some live lease on {@code key} was taken at or before lease id {@code mark}. */
    boolean heldSince(String key, long mark, long now) {
        Map<Long, Held> held = byKey.get(key);
        return held != null && held.entrySet().stream().anyMatch(lease -> lease.getKey() <= mark && lease.getValue().expires() >= now);
    }

    /** When the last live lease on {@code key} ends. */
    OptionalLong latestExpiry(String key) {
        Map<Long, Held> held = byKey.get(key);
        return held == null ? OptionalLong.empty() : held.values().stream().mapToLong(Held::expires).max();
    }

    /** Every lease on {@code key}, as its record says, live or not. */
    List<ReadLease> on(String key) {
        Map<Long, Held> held = byKey.getOrDefault(key, Map.of());
        return held.entrySet().stream().map(lease -> new ReadLease(key, lease.getKey(), Instant.ofEpochMilli(lease.getValue().expires()),
                lease.getValue().holder())).toList();
    }

    /** Moves every lease on {@code key} to {@code to}, as they are. */
    void move(String key, String to) {
        Map<Long, Held> held = byKey.remove(key);
        if (held != null) {
            byKey.computeIfAbsent(to, k -> new HashMap<>()).putAll(held);
        }
    }

    /** Drops every lease on {@code key}; returns their ids. */
    List<Long> forget(String key) {
        Map<Long, Held> held = byKey.remove(key);
        return held == null ? List.of() : List.copyOf(held.keySet());
    }

    /** Drops the leases that ended before {@code now}; returns their ids. */
    List<Long> dropExpired(long now) {
        List<Long> dropped = new ArrayList<>();
        for (Iterator<Map<Long, Held>> keys = byKey.values().iterator(); keys.hasNext(); ) {
            Map<Long, Held> held = keys.next();
            held.entrySet().removeIf(lease -> {
                boolean expired = lease.getValue().expires() < now;
                if (expired) {
                    dropped.add(lease.getKey());
                }
                return expired;
            });
            if (held.isEmpty()) {
                keys.remove();
            }
        }
        return dropped;
    }
}
