package io.weightstore.store.api;

import java.time.Instant;
import java.util.List;

/**
 * A stored object: its key, size, how it is cut into slices and where each slice's replicas are.
 *
 * @param checksumBlockSize bytes per CRC32C block of a slice; a slice's last block may be shorter
 * @param replicas copies of each slice the writer asked for
 * @param owner the identity that wrote the object, as the master authenticated it ("writer importer"); empty on
 *     a store that serves no identities (embedded or insecure). Only the master sets it: see {@link Caller}
 */
public record ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
        Instant createdAt, int replicas, String owner) {
    public ObjectMeta {
        slices = List.copyOf(slices);
        owner = owner == null ? "" : owner;
    }

    /** An object with no recorded owner. */
    public ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
            Instant createdAt, int replicas) {
        this(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, "");
    }

    public SliceMeta slice(int index) {
        return slices.get(index);
    }

    public ObjectMeta withSlices(List<SliceMeta> changed) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, changed, pinned, createdAt, replicas, owner);
    }

    public ObjectMeta withCreatedAt(Instant at) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, at, replicas, owner);
    }
}
