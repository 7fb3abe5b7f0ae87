package io.weightstore.weights;

import io.weightstore.store.api.StoreException;
import java.io.IOException;

/**
 * Removes the files of a READY checkpoint's earlier versions that its manifest no longer names: a
 * replace leaves them when a reader of the version before still reads them as it finishes. Under the
 * checkpoint's lock, in one removal that a reader's lease refuses unless forced.
 */
public final class CheckpointPruner {
    private final Catalog catalog;

    public CheckpointPruner(Catalog catalog) {
        this.catalog = catalog;
    }

    /** Returns what was removed: objects (files and their CRC tables) and their bytes. */
    public ListedCheckpoint.Leftovers run(CheckpointId id, boolean force) throws IOException {
        try (CatalogLock lock = CatalogLock.acquire(catalog.store(), id, "prune")) {
            Manifest ready = catalog.readyManifest(id);
            try {
                return ListedCheckpoint.Leftovers.of(catalog.removeLeftovers(ready, force, lock.owner()));
            } catch (StoreException e) {
                lock.requireNotLost(id, "prune", e);
                if (e.code() == StoreException.Code.FAILED_PRECONDITION) {
                    throw new CheckpointException(CheckpointException.Code.LOCKED, "files of earlier versions of checkpoint " + id
                            + " are still being read (" + e.getMessage() + "); run prune again when the readers finish, or with --force",
                            e);
                }
                throw e;
            }
        }
    }
}
