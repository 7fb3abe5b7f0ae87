package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checkpoints in a store, and where their pieces live: one manifest object and one object per
 * file, {@code weights/<id>/manifest} and {@code weights/<id>/files/<path>}. Listing is a prefix
 * listing on the master; there is no index object to read-modify-write.
 */
public final class Catalog {
    private static final String ROOT = "weights/";
    private static final String MANIFEST = "/manifest";
    private static final String FILES = "/files/";
    /** Manifests are tiny and every load starts with one: a copy on every node, up to this many. */
    private static final int MAX_MANIFEST_REPLICAS = 3;

    private final StoreClient store;
    private Integer manifestReplicas;

    public Catalog(StoreClient store) {
        this.store = store;
    }

    public StoreClient store() {
        return store;
    }

    // ---- key layout

    static String prefix(CheckpointId id) {
        return ROOT + id + "/";
    }

    static String manifestKey(CheckpointId id) {
        return ROOT + id + MANIFEST;
    }

    static String filesPrefix(CheckpointId id) {
        return ROOT + id + FILES;
    }

    static String lockName(CheckpointId id) {
        return ROOT + id;
    }

    /** The checkpoint a manifest key belongs to, or empty when the key is not a manifest. */
    static Optional<CheckpointId> idOfManifest(String key) {
        if (!key.startsWith(ROOT) || !key.endsWith(MANIFEST)) {
            return Optional.empty();
        }
        String id = key.substring(ROOT.length(), key.length() - MANIFEST.length());
        try {
            return Optional.of(new CheckpointId(id));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    // ---- manifests

    public Optional<Manifest> manifest(CheckpointId id) throws IOException {
        String key = manifestKey(id);
        try {
            return Optional.of(Manifest.fromJson(store.readAll(key), key));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The object holding a checkpoint's manifest, or empty when there is none. Its {@code createdAt}
     * changes whenever the manifest is written, so a reader that keeps manifests can tell, with one
     * metadata call and no read, whether its copy is current.
     */
    public Optional<ObjectMeta> manifestObject(CheckpointId id) throws StoreException {
        return store.find(manifestKey(id));
    }

    /** The manifest of a checkpoint that exists, whatever its status. */
    public Manifest existingManifest(CheckpointId id) throws IOException {
        return manifest(id).orElseThrow(() ->
                new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store"));
    }

    /** The manifest of a checkpoint that loaders may read: it exists and is READY. */
    public Manifest readyManifest(CheckpointId id) throws IOException {
        Manifest manifest = existingManifest(id);
        if (manifest.status() != CheckpointStatus.READY) {
            throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id + " is " + manifest.status()
                    + ", not READY" + (manifest.error() == null ? "" : " (" + manifest.error() + ")"));
        }
        return manifest;
    }

    /** Every checkpoint, in id order. */
    public List<Manifest> list() throws IOException {
        List<Manifest> manifests = new ArrayList<>();
        for (ObjectMeta object : store.list(ROOT)) {
            Optional<CheckpointId> id = idOfManifest(object.key());
            if (id.isPresent()) {
                manifest(id.get()).ifPresent(manifests::add);
            }
        }
        return manifests;
    }

    /** Writes the manifest as {@code writer}, the holder of the checkpoint's lock. */
    void writeManifest(Manifest manifest, LockOwner writer) throws IOException {
        store.put(manifestKey(manifest.checkpointId()), manifest.toJson(), PutOptions.defaults().withReplicas(manifestReplicas())
                .withReplace(true).withPin(true).withWriter(writer.toString()));
    }

    /** Counted once per catalog: nodes up when it first writes a manifest. */
    private synchronized int manifestReplicas() throws StoreException {
        if (manifestReplicas == null) {
            manifestReplicas = (int) Math.max(1, Math.min(MAX_MANIFEST_REPLICAS, store.status().nodesUp()));
        }
        return manifestReplicas;
    }

    // ---- files

    /** One file of the checkpoint, as the manifest records it, with the object that holds it. */
    public StoredFile file(Manifest manifest, ManifestFile file) {
        return new StoredFile(store, manifest.checkpointId(), file, filesPrefix(manifest.checkpointId()) + file.path());
    }

    public List<StoredFile> files(Manifest manifest) {
        return manifest.files().stream().map(f -> file(manifest, f)).toList();
    }

    static Instant now() {
        return Instant.now();
    }
}
