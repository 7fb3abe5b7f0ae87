package io.weightstore.store.master;

import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ReplicaRef;
import java.util.List;

/** Decides where the replicas of a new slice go. */
interface Placement {
    /**
     * Allocates up to {@code replicas} copies of slice {@code sliceIndex} ({@code length} bytes) on distinct
     * nodes among {@code candidates}, in {@code registry}'s segments; fewer when the rest do not fit.
     */
    List<ReplicaRef> place(int sliceIndex, long length, int replicas, List<NodeInfo> candidates, NodeRegistry registry);
}
