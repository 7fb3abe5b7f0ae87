package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.util.List;

/**
 * Deletes a checkpoint: under its lock, marks it DELETING (loaders refuse it from then on), removes
 * the files, then the manifest. A delete that stops half-way leaves it DELETING, and running it
 * again finishes it.
 */
public final class CheckpointRemover {
    private final Catalog catalog;
    private final StoreClient store;

    public CheckpointRemover(Catalog catalog) {
        this.catalog = catalog;
        this.store = catalog.store();
    }

    /** Returns the number of files removed. */
    public int run(CheckpointId id, boolean force) throws IOException {
        try (CatalogLock lock = CatalogLock.acquire(store, id, "delete")) {
            Manifest manifest = catalog.manifest(id).orElse(null);
            List<ObjectMeta> files = store.list(Catalog.filesPrefix(id));
            if (manifest == null && files.isEmpty()) {
                throw new CheckpointException(CheckpointException.Code.NOT_FOUND, "no checkpoint " + id + " in the store");
            }
            if (manifest != null && manifest.status() != CheckpointStatus.DELETING) {
                catalog.writeManifest(manifest.withStatus(CheckpointStatus.DELETING, Catalog.now(), null), lock.owner());
            }
            int removed = 0;
            for (ObjectMeta file : files) {
                try {
                    store.remove(file.key(), force);
                } catch (StoreException e) {
                    if (e.code() == StoreException.Code.FAILED_PRECONDITION) {
                        throw new CheckpointException(CheckpointException.Code.LOCKED, "checkpoint " + id + " is DELETING but "
                                + file.key() + " is being read (" + e.getMessage() + "); run delete again when readers finish,"
                                + " or with --force", e);
                    }
                    if (e.code() != StoreException.Code.NOT_FOUND) {
                        throw e;
                    }
                }
                removed++;
            }
            if (manifest != null) {
                store.remove(Catalog.manifestKey(id), true);
            }
            return removed;
        }
    }
}
