package io.weightstore.store.api;

import java.time.Instant;
import java.util.List;

/**
 * A stored object: its key, size, how it is cut into slices and where each slice's replicas are.
 *
 * @param checksumBlockSize bytes per CRC32C block of a slice; a slice's last block may be shorter
 * @param replicas copies of each slice the master keeps: what the writer asked for, or what
 *     {@link MasterApi#setReplicas} set since
 * @param owner the identity that wrote the object, as the master authenticated it ("writer importer"); empty on
 *     a store that serves no identities (embedded or insecure). Only the master sets it: see {@link Caller}
 * @param autoReplicas whether the master may add copies beyond {@code replicas} while many readers
 *     hold the object, and trim them once they are gone
 * @param localCopies nodes that keep a copy of every slice for the engines on their host, on top of
 *     {@code replicas} ({@link MasterApi#keepLocalCopies})
 */
public record ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
        Instant createdAt, int replicas, String owner, boolean autoReplicas, List<String> localCopies) {
    public ObjectMeta {
        slices = List.copyOf(slices);
        owner = owner == null ? "" : owner;
        localCopies = List.copyOf(localCopies);
    }

    /** An object at a fixed replica count, with no local copies, written by {@code owner}, as a put makes it. */
    public ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
            Instant createdAt, int replicas, String owner) {
        this(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, owner, false, List.of());
    }

    /** An object with no recorded owner, at a fixed replica count and with no local copies. */
    public ObjectMeta(String key, long size, long sliceSize, int checksumBlockSize, List<SliceMeta> slices, boolean pinned,
            Instant createdAt, int replicas) {
        this(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, "");
    }

    public SliceMeta slice(int index) {
        return slices.get(index);
    }

    /** How many of this object's slice replicas node {@code nodeId} holds. */
    public int replicasOn(String nodeId) {
        int count = 0;
        for (SliceMeta slice : slices) {
            count += (int) slice.replicas().stream().filter(r -> r.nodeId().equals(nodeId)).count();
        }
        return count;
    }

    public ObjectMeta withSlices(List<SliceMeta> changed) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, changed, pinned, createdAt, replicas, owner, autoReplicas,
                localCopies);
    }

    public ObjectMeta withCreatedAt(Instant at) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, at, replicas, owner, autoReplicas, localCopies);
    }

    public ObjectMeta withReplicas(int count, boolean auto) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, count, owner, auto, localCopies);
    }

    public ObjectMeta withLocalCopies(List<String> nodeIds) {
        return new ObjectMeta(key, size, sliceSize, checksumBlockSize, slices, pinned, createdAt, replicas, owner, autoReplicas, nodeIds);
    }
}
