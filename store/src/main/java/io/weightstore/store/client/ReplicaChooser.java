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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The order in which a slice's replicas are tried: local pools first, then nodes that are up and
 * not suspect, then the rest as a last resort. Among the nodes that are up, the one this client has
 * asked for the fewest bytes lately goes first (ties broken at random): every client spreads its own
 * reads evenly over the nodes, so many clients loading one checkpoint at once spread evenly too.
 * Measured against the other ways (ReadSpreadingTest; README, read spreading): a fixed order rotated
 * by slice put up to 2× a node's fair share on one node, a random pick up to 1.23×, the load nodes
 * report to the master (a second old, and the same for every client that opens at once) up to
 * 1.99×, this ledger at most 1.13×. The ledger halves every {@link #HALF_LIFE_MS}, so a node that
 * joins or comes back is not flooded until it has caught up with the others' past.
 *
 * <p>A node that failed to answer is suspect for a while, so the next reads go elsewhere first; each
 * failure in a row doubles that while (a frozen node would otherwise cost every retry its full
 * deadline), and an answer clears it. A node that answered BUSY goes after the others for a second,
 * without counting as a failure.
 */
final class ReplicaChooser {
    private static final long FIRST_SUSPECT_MS = 5_000;
    private static final long LONGEST_SUSPECT_MS = 120_000;
    private static final long HALF_LIFE_MS = 10_000;
    /** How long a node that answered BUSY is asked after the others: a place frees as soon as a transfer ends. */
    private static final long BUSY_MS = 1_000;

    /** How long a node stays suspect, and how many times in a row it failed. */
    private record Suspicion(long untilMillis, int failures) {}

    private final NodeConnections connections;
    private final Map<String, Suspicion> suspects = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> asked = new ConcurrentHashMap<>();
    private volatile long lastHalving = System.currentTimeMillis();

    ReplicaChooser(NodeConnections connections) {
        this.connections = connections;
    }

    List<ReplicaRef> order(Located located, int sliceIndex) {
        SliceMeta slice = located.object().slice(sliceIndex);
        List<ReplicaRef> replicas = new ArrayList<>(slice.replicas());
        long now = System.currentTimeMillis();
        decay(now);
        Collections.shuffle(replicas, ThreadLocalRandom.current());
        // Stable sorts: the random order breaks ties of the ledger, which breaks ties of rank.
        replicas.sort(Comparator.comparingLong(r -> asked(r.nodeId())));
        replicas.sort(Comparator.comparingInt(r -> rank(located.nodes().get(r.nodeId()), now)));
        return replicas;
    }

    /** The client is about to ask {@code nodeId} for {@code bytes}. */
    void asking(String nodeId, long bytes) {
        asked.computeIfAbsent(nodeId, id -> new AtomicLong()).addAndGet(bytes);
    }

    private long asked(String nodeId) {
        AtomicLong bytes = asked.get(nodeId);
        return bytes == null ? 0 : bytes.get();
    }

    private void decay(long now) {
        if (now - lastHalving < HALF_LIFE_MS) {
            return;
        }
        synchronized (this) {
            if (now - lastHalving >= HALF_LIFE_MS) {
                lastHalving = now;
                asked.values().forEach(bytes -> bytes.updateAndGet(b -> b / 2));
            }
        }
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

    /**
     * {@code nodeId} had no connection to spare for the {@code bytes} it was just asked for: the ask is not counted, and
     * the node is asked after the others for a moment, unless suspect for longer already.
     */
    void busy(String nodeId, long bytes) {
        asked.computeIfPresent(nodeId, (id, count) -> {
            count.updateAndGet(b -> Math.max(0, b - bytes));
            return count;
        });
        long until = System.currentTimeMillis() + BUSY_MS;
        suspects.merge(nodeId, new Suspicion(until, 0),
                (previous, mark) -> previous.untilMillis() >= until ? previous : new Suspicion(until, previous.failures()));
    }

    void answered(String nodeId) {
        if (!suspects.isEmpty()) {
            suspects.remove(nodeId);
        }
    }
}
