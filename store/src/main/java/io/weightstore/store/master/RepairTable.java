package io.weightstore.store.master;

import io.weightstore.store.api.RepairGrant;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Repairs handed out and not yet committed or given up. Kept in memory only: nothing persisted
 * refers to a pending repair's room, so a master that restarts rebuilds its segments from the
 * objects and the room is free again by itself. At most one repair per slice is pending, so two
 * repairs never race to replace the same copy. Not thread-safe; the master serialises access.
 */
final class RepairTable {
    /** A pending repair, with what its commit checks and its release needs. */
    record Pending(RepairGrant grant, Instant version, long length) {}

    private final Map<String, Pending> byId = new LinkedHashMap<>();

    void add(RepairGrant grant, Instant version, long length) {
        byId.put(grant.repairId(), new Pending(grant, version, length));
    }

    Optional<Pending> remove(String repairId) {
        return Optional.ofNullable(byId.remove(repairId));
    }

    Optional<RepairGrant> pendingFor(String key, int slice) {
        return byId.values().stream().map(Pending::grant).filter(g -> g.key().equals(key) && g.slice() == slice).findFirst();
    }

    List<Pending> expired(long nowMillis) {
        return byId.values().stream().filter(p -> p.grant().deadline().toEpochMilli() < nowMillis).toList();
    }

    /** Repairs that write to the node or replace its copy. */
    List<Pending> involving(String nodeId) {
        return byId.values().stream()
                .filter(p -> p.grant().target().nodeId().equals(nodeId) || p.grant().replaces().equals(nodeId)).toList();
    }
}
