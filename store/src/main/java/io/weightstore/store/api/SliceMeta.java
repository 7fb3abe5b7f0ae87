package io.weightstore.store.api;

import java.util.List;

/**
 * One slice of an object: bytes {@code offset .. offset + length} of it, the replicas that hold
 * them, and the CRC32C of each checksum block (empty until the put is sealed).
 */
public record SliceMeta(long offset, long length, List<ReplicaRef> replicas, BlockCrcs crcs) {
    public SliceMeta {
        replicas = List.copyOf(replicas);
    }

    public long end() {
        return offset + length;
    }

    public List<String> nodeIds() {
        return replicas.stream().map(ReplicaRef::nodeId).toList();
    }

    public SliceMeta withCrcs(BlockCrcs sealed) {
        return new SliceMeta(offset, length, replicas, sealed);
    }

    public SliceMeta withReplicas(List<ReplicaRef> moved) {
        return new SliceMeta(offset, length, moved, crcs);
    }
}
