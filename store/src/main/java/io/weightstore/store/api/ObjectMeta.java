package io.weightstore.store.api;

import java.time.Instant;
import java.util.List;

/**
 * A stored object: its key, size, how it is cut into slices and where each slice's replicas are.
 *
 * @param checksumBlockSize bytes per CRC32C block of a slice; a slice's last block may be shorter
 * @param replicas copies of each slice the writer asked for
 */
public record ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
        Instant createdAt, int replicas) {
    public ObjectMeta {
        slices = List.copyOf(slices);
    }

    public SliceMeta slice(int index) {
        return slices.get(index);
    }

    public ObjectMeta withSlices(List<SliceMeta> changed) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, changed, pinned, createdAt, replicas);
    }

    public ObjectMeta withCreatedAt(Instant at) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, at, replicas);
    }
}
