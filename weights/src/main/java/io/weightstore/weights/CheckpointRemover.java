package io.weightstore.weights;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.io.IOException;
import java.util.Comparator;
import java.util.List;

/**
 * Deletes a checkpoint: under its lock, everything under its prefix (files of every version, their
 * tensor CRC tables, the manifest, a replace's manifest) goes in one all-or-nothing removal on the master, so a delete refused because the
 * checkpoint is being read changes nothing, and a delete that happened leaves nothing half-visible. A master group
 * removes in parts, in the order given: the manifests go last, so a delete cut short leaves a checkpoint that
 * {@code list} still shows and a second delete finishes, never objects that no manifest names.
 */
public final class CheckpointRemover {
    private final StoreClient store;

    public CheckpointRemover(Catalog catalog) {
        this.store = catalog.store();
    }

    /** Returns the number of file objects removed (the manifests and the files' tensor CRC tables go too, uncounted). */
    public int run(CheckpointId id, boolean force) throws IOException {
        try (CatalogLock lock = CatalogLock.acquire(store, id, "delete")) {
            List<String> manifests = List.of(Catalog.replacementKey(id), Catalog.manifestKey(id));
            List<String> keys = store.list(Catalog.prefix(id)).stream().map(ObjectMeta::key)
                    .sorted(Comparator.comparingInt(manifests::indexOf)).toList();
            if (keys.isEmpty()) {
                throw Catalog.noSuchCheckpoint(id);
            }
            try {
                store.removeAllUnderLock(keys, force, lock.owner().toString(), Catalog.lockName(id));
            } catch (StoreException e) {
                lock.requireNotLost(id, "delete", e);
                if (e.code() == StoreException.Code.FAILED_PRECONDITION) {
                    throw new CheckpointException(CheckpointException.Code.LOCKED, "checkpoint " + id + " is being read ("
                            + e.getMessage() + "); run delete again when the readers finish, or with --force", e);
                }
                throw e;
            }
            return (int) keys.stream().filter(key -> Catalog.isFileKey(id, key)).count();
        }
    }
}
