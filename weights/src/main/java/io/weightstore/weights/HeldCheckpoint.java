package io.weightstore.weights;

import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.List;

/**
 * A READY checkpoint's manifest, its files, and a read lease on each file that opens, the files' leases
 * taken while the manifest's own lease still held: a replace cannot switch the manifest in between,
 * and then remove files of this version as ones the next version no longer names.
 */
record HeldCheckpoint(Manifest manifest, List<StoredFile> files, HeldFiles held) implements AutoCloseable {
    static HeldCheckpoint of(Catalog catalog, CheckpointId id) throws IOException {
        Catalog.LeasedManifest ready = catalog.readyManifestLeased(id);
        try (ObjectReader manifestLease = ready.lease()) {
            List<StoredFile> files = catalog.files(ready.manifest());
            return new HeldCheckpoint(ready.manifest(), files, HeldFiles.of(files));
        }
    }

    @Override
    public void close() {
        held.close();
    }
}
