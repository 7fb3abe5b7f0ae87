package io.weightstore.store;

import io.weightstore.store.proto.ObjectMeta;
import io.weightstore.store.proto.Replica;
import java.util.List;

/** A sealed object as callers see it: size, placement and flags. */
public record ObjectInfo(String key, long size, int replicas, boolean pinned, long createdMs, List<SliceInfo> slices) {
    /** One slice: where it sits in the object and which nodes hold its replicas. */
    public record SliceInfo(long offset, long length, List<String> nodeIds) {}

    public ObjectInfo {
        slices = List.copyOf(slices);
    }

    static ObjectInfo of(ObjectMeta meta) {
        return new ObjectInfo(meta.getKey(), meta.getSize(), meta.getReplicas(), meta.getPinned(), meta.getCreatedMs(),
                meta.getSlicesList().stream()
                        .map(s -> new SliceInfo(s.getOffset(), s.getLength(), s.getReplicasList().stream().map(Replica::getNodeId).toList()))
                        .toList());
    }
}
