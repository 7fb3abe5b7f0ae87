package io.weightstore.weights;

import io.weightstore.store.ObjectInfo;
import io.weightstore.store.PutOptions;
import io.weightstore.store.StoreClient;
import io.weightstore.store.StoreException;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The checkpoints in a store: one manifest object and one object per file under
 * {@code weights/<id>/}. Listing is a prefix listing on the master; there is no index object.
 */
public final class Catalog {
    private final StoreClient store;

    public Catalog(StoreClient store) {
        this.store = store;
    }

    public StoreClient store() {
        return store;
    }

    public Optional<Manifest> manifest(String id) throws IOException {
        CheckpointId.validate(id);
        String key = CatalogKeys.manifest(id);
        try {
            return Optional.of(Manifest.fromJson(store.readAll(key), key));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The manifest of a checkpoint that loaders may read: it exists and is READY. */
    public Manifest readyManifest(String id) throws IOException {
        Manifest manifest = manifest(id).orElseThrow(() ->
                new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store"));
        if (manifest.status() != CheckpointStatus.READY) {
            throw new CheckpointException(CheckpointException.Code.NOT_READY, "checkpoint " + id + " is " + manifest.status()
                    + ", not READY" + (manifest.error() == null ? "" : " (" + manifest.error() + ")"));
        }
        return manifest;
    }

    /** Every checkpoint, in id order. */
    public List<Manifest> list() throws IOException {
        List<Manifest> manifests = new ArrayList<>();
        for (ObjectInfo object : store.list(CatalogKeys.ROOT)) {
            String id = CatalogKeys.idOfManifest(object.key());
            if (id != null) {
                manifest(id).ifPresent(manifests::add);
            }
        }
        return manifests;
    }

    void writeManifest(Manifest manifest) throws IOException {
        store.put(CatalogKeys.manifest(manifest.checkpointId()), manifest.toJson(),
                PutOptions.defaults().withReplicas(manifestReplicas()).withReplace(true).withPin(true));
    }

    /** Manifests are tiny and every read starts with one: keep a copy on every node up to three. */
    private int manifestReplicas() throws StoreException {
        long up = store.status().nodes().stream().filter(n -> n.up()).count();
        return (int) Math.max(1, Math.min(3, up));
    }

    static String now() {
        return Instant.now().toString();
    }
}
