package io.weightstore.store.master;

import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ReplicaRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

/**
 * Spreads slices over the nodes: the nodes with the most room first, and among equals a scan that
 * starts at a different node per slice, so one large object is read from every node at once.
 */
final class SpreadPlacement implements Placement {
    @Override
    public List<ReplicaRef> place(int sliceIndex, long length, int replicas, List<NodeInfo> candidates, NodeRegistry registry) {
        List<NodeInfo> order = new ArrayList<>(candidates);
        if (!order.isEmpty()) {
            Collections.rotate(order, -(sliceIndex % order.size()));
        }
        // Stable: nodes with equal room keep the rotated order.
        order.sort(Comparator.comparingLong((NodeInfo n) -> -registry.space(n.nodeId()).free() / Math.max(1, length)));
        List<ReplicaRef> placed = new ArrayList<>();
        for (NodeInfo node : order) {
            if (placed.size() == replicas) {
                break;
            }
            OptionalLong offset = registry.space(node.nodeId()).allocate(length);
            if (offset.isPresent()) {
                placed.add(new ReplicaRef(node.nodeId(), offset.getAsLong()));
            }
        }
        return placed;
    }
}
