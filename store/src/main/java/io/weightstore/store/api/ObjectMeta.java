package io.weightstore.store.api;

import java.time.Instant;
import java.util.List;

/**
 * A stored object: its key, size, how it is cut into slices and where each slice's replicas are.
 *
 * @param checksumBlockSize bytes per CRC32C block of a slice; a slice's last block may be short
 * @param replicas copies of each slice the master keeps: what the writer asked for, or what
 *     {@link MasterApi#setReplicas} set since
 * @param autoReplicas whether the master may add copies beyond {@code replicas} while many readers
 *     hold the object, and trim them once they are gone
 * @param localCopies nodes that keep a copy of every slice for the engines on their host, on top of
 *     {@code replicas} ({@link MasterApi#keepLocalCopies})
 */
public record ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
        Instant createdAt, int replicas, boolean autoReplicas, List<String> localCopies) {
    public ObjectMeta {
        slices = List.copyOf(slices);
        localCopies = List.copyOf(localCopies);
    }

    /** An object at a fixed replica count and with no local copies, as a put makes it. */
    public ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
            Instant createdAt, int replicas) {
        this(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, false, List.of());
    }

    public SliceMeta slice(int index) {
        return slices.get(index);
    }

    public ObjectMeta withSlices(List<SliceMeta> changed) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, changed, pinned, createdAt, replicas, autoReplicas, localCopies);
    }

    public ObjectMeta withCreatedAt(Instant at) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, at, replicas, autoReplicas, localCopies);
    }

    public ObjectMeta withReplicas(int count, boolean auto) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, count, auto, localCopies);
    }

    public ObjectMeta withLocalCopies(List<String> nodeIds) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, autoReplicas, nodeIds);
    }
}
