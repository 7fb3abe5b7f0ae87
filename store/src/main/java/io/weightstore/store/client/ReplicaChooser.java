package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The order in which a slice's replicas are tried: local pools first, then nodes that are up and
 * not suspect (rotated by slice to spread load), then the rest as a last resort. A node that failed
 * to answer is suspect for a while, so the next reads go elsewhere first; each failure in a row
 * doubles that while (a frozen node would otherwise cost every retry its full deadline), and an
 * answer clears it.
 */
final class ReplicaChooser {
    private static final long FIRST_SUSPECT_MS = 5_000;
    private static final long LONGEST_SUSPECT_MS = 120_000;

    /** How long a node stays suspect, and how many times in a row it failed. */
    private record Suspicion(long untilMillis, int failures) {}

    private final NodeConnections connections;
    private final Map<String, Suspicion> suspects = new ConcurrentHashMap<>();

    ReplicaChooser(NodeConnections connections) {
        this.connections = connections;
    }

    List<ReplicaRef> order(Located located, int sliceIndex) {
        SliceMeta slice = located.object().slice(sliceIndex);
        List<ReplicaRef> replicas = new ArrayList<>(slice.replicas());
        if (replicas.size() > 1) {
            Collections.rotate(replicas, -(sliceIndex % replicas.size()));
        }
        long now = System.currentTimeMillis();
        replicas.sort(Comparator.comparingInt(r -> rank(located.nodes().get(r.nodeId()), now)));
        return replicas;
    }

    private int rank(NodeStatus node, long now) {
        if (node == null) {
            return 3;
        }
        if (connections.isLocal(node.info())) {
            return 0;
        }
        Suspicion suspicion = suspects.get(node.nodeId());
        boolean suspect = suspicion != null && suspicion.untilMillis() > now;
        return node.up() && !suspect ? 1 : 2;
    }

    void suspect(String nodeId) {
        suspects.compute(nodeId, (id, previous) -> {
            int failures = previous == null ? 1 : previous.failures() + 1;
            long wait = Math.min(LONGEST_SUSPECT_MS, FIRST_SUSPECT_MS << Math.min(failures - 1, 10));
            return new Suspicion(System.currentTimeMillis() + wait, failures);
        });
    }

    void answered(String nodeId) {
        if (!suspects.isEmpty()) {
            suspects.remove(nodeId);
        }
    }
}
