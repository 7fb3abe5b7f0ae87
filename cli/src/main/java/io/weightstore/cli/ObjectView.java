package io.weightstore.cli;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.SliceMeta;
import java.time.Instant;
import java.util.List;

/**
 * An object as {@code --json} shows it: placement and who wrote it (empty on a store without identities), without
 * the checksums, which mean nothing to a reader. Each slice names its nodes, and where in each node's
 * pool its copy lies (the data offset), for an operator looking at a pool file.
 */
record ObjectView(String key, long size, int replicas, boolean pinned, Instant createdAt, String owner, List<SliceView> slices) {
    record SliceView(long offset, long length, List<String> nodes, List<CopyView> copies) {}

    record CopyView(String node, long poolOffset) {}

    static ObjectView of(ObjectMeta object) {
        return new ObjectView(object.key(), object.size(), object.replicas(), object.pinned(), object.createdAt(), object.owner(),
                object.slices().stream().map(ObjectView::slice).toList());
    }

    private static SliceView slice(SliceMeta slice) {
        return new SliceView(slice.offset(), slice.length(), slice.nodeIds(),
                slice.replicas().stream().map(r -> new CopyView(r.nodeId(), r.offset())).toList());
    }
}
