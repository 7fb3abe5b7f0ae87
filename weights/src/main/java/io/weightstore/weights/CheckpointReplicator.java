package io.weightstore.weights;

import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Sets how many copies of a checkpoint's files the master keeps, online: the master copies slices
 * node to node up to the count (an object's metadata names a copy only once it is sealed) and drops
 * copies beyond it. The manifest keeps its own count (a copy on up to three nodes, as written): it is
 * tiny, and every load starts with it.
 */
public final class CheckpointReplicator {
    /**
     * What was asked and what changed.
     *
     * @param replicas the count set; with {@code auto}, the floor below which the master never goes
     * @param filesChanged files whose count changed (the others had it already)
     */
    public record Result(String checkpointId, int replicas, boolean auto, int files, int filesChanged) {}

    private final Catalog catalog;

    public CheckpointReplicator(Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * Sets the count of every file of a READY checkpoint (and of its column layouts) to {@code replicas}, or with {@code auto}
     * lets the master add copies while many readers hold a file and trim them later, never below
     * {@code replicas}; an empty {@code replicas} with {@code auto} keeps the floor at the largest
     * count a file has now. Holds the checkpoint's lock: a replace that ran meanwhile would write its new
     * files with the count it read before this one was set.
     */
    public Result run(CheckpointId id, Optional<Integer> replicas, boolean auto) throws IOException {
        if (replicas.isEmpty() && !auto) {
            throw new IllegalArgumentException("a replica count is needed unless the count is auto");
        }
        try (CatalogLock lock = CatalogLock.acquire(catalog.store(), id, "replicate")) {
            Manifest manifest = catalog.readyManifest(id);
            List<String> keys = catalog.files(manifest).stream().map(StoredFile::key).toList();
            int floor = replicas.isPresent() ? replicas.get() : CopyCount.keptBy(manifest, catalog).replicas();
            int changed = catalog.store().setReplicas(keys, floor, auto);
            // The column layouts follow their files: with fewer copies, a layout's lost node would fail the loads that read it.
            List<String> layouts = layoutKeys(manifest);
            if (!layouts.isEmpty()) {
                catalog.store().setReplicas(layouts, floor, auto);
            }
            return new Result(id.toString(), floor, auto, keys.size(), changed);
        }
    }

    /**
     * Has the node on this host, if there is one, keep a copy of every slice of the checkpoint's
     * files on top of their count, copied node to node in the background, so that the next load here
     * maps its own memory and other hosts may read that copy too. Empty when no node's pool is
     * visible here; else the node and how many files it will now keep. The column layouts for {@code worldSize} ranks,
     * which a load at that size reads (none at 1), are kept too.
     */
    public Optional<LocalCopies> keepLocal(CheckpointId id, int worldSize) throws IOException {
        Optional<NodeInfo> local = catalog.store().localNode();
        if (local.isEmpty()) {
            return Optional.empty();
        }
        Manifest manifest = catalog.readyManifest(id);
        List<String> keys = catalog.files(manifest).stream().map(StoredFile::key).toList();
        int changed = catalog.store().keepLocalCopies(keys, local.get().nodeId());
        List<String> layouts = catalog.files(manifest).stream()
                .flatMap(f -> f.file().columnLayout(worldSize).map(f::columnsKey).stream()).toList();
        if (!layouts.isEmpty()) {
            catalog.store().keepLocalCopies(layouts, local.get().nodeId());
        }
        return Optional.of(new LocalCopies(local.get().nodeId(), keys.size(), changed));
    }

    /** The keys of the checkpoint's column layouts. */
    private List<String> layoutKeys(Manifest manifest) {
        return catalog.files(manifest).stream().flatMap(f -> f.file().columnLayouts().stream().map(f::columnsKey)).toList();
    }

    /** The node on this host that keeps a copy of a checkpoint's files, and how many files newly asked of it. */
    public record LocalCopies(String nodeId, int files, int filesChanged) {}

    /** How the copies of the checkpoint's files stand now. */
    public ReplicaHealth health(CheckpointId id) throws IOException {
        Manifest manifest = catalog.existingManifest(id);
        StoreStatus status = catalog.store().status();
        List<ObjectMeta> objects = new ArrayList<>();
        for (StoredFile file : catalog.files(manifest)) {
            file.object().ifPresent(objects::add);
        }
        Map<String, NodeStatus> nodes = status.nodes().stream().collect(Collectors.toMap(NodeStatus::nodeId, n -> n));
        return ReplicaHealth.of(objects, nodes, status.replication().copies());
    }
}
