package io.weightstore.store.master;

import io.weightstore.store.api.ObjectMeta;
import java.util.HashMap;
import java.util.Map;

/**
 * The replica count of an object whose count is auto: its own count as a floor, one copy more per
 * {@code readersPerReplica} readers holding it (read leases), at most one per node up. What readers
 * raised stays for the cool-down after they are gone, so a fleet that reloads every few minutes does
 * not see its copies trimmed and made again between loads. Not thread-safe; the master serialises
 * access.
 */
final class AutoReplicas {
    /** The highest count readers called for lately, and until when it stands. */
    private record Peak(int count, long untilMillis) {}

    private final int readersPerReplica;
    private final long coolDownMillis;
    private final Map<String, Peak> peaks = new HashMap<>();

    AutoReplicas(int readersPerReplica, long coolDownMillis) {
        this.readersPerReplica = readersPerReplica;
        this.coolDownMillis = coolDownMillis;
    }

    /** The count the master keeps now; {@code readers} are the object's live leases. */
    int target(ObjectMeta object, int readers, int nodesUp, long now) {
        if (!object.autoReplicas()) {
            return object.replicas();
        }
        int wanted = Math.min(Math.max(1, nodesUp), Math.ceilDiv(readers, readersPerReplica));
        Peak peak = peaks.get(object.key());
        if (peak == null || wanted >= peak.count() || peak.untilMillis() < now) {
            peak = wanted > object.replicas() ? new Peak(wanted, now + coolDownMillis) : null;
        }
        if (peak == null) {
            peaks.remove(object.key());
            return object.replicas();
        }
        peaks.put(object.key(), peak);
        return Math.max(object.replicas(), peak.count());
    }

    /** Whether {@code target} is above the object's own count because readers raised it: such copies need room to spare. */
    static boolean raised(ObjectMeta object, int target) {
        return target > object.replicas();
    }

    void forget(String key) {
        peaks.remove(key);
    }
}
