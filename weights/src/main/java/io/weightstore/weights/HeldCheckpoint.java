package io.weightstore.weights;

import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.util.List;

/**
 * A READY checkpoint's manifest, its files (or one of them), and a read lease on each file that opens, the files' leases
 * taken while the manifest's own lease still held: a replace cannot switch the manifest in between,
 * and then remove files of this version as ones the next version no longer names.
 */
record HeldCheckpoint(Manifest manifest, List<StoredFile> files, HeldFiles held) implements AutoCloseable {
    static HeldCheckpoint of(Catalog catalog, CheckpointId id) throws IOException {
        return of(catalog, id, catalog::files);
    }

    /** As {@link #of(Catalog, CheckpointId)}, holding the file {@code path} alone; NOT_FOUND when the checkpoint has none. */
    static HeldCheckpoint ofFile(Catalog catalog, CheckpointId id, String path) throws IOException {
        return of(catalog, id, manifest -> List.of(catalog.file(manifest, manifest.file(path).orElseThrow(
                () -> new CheckpointException(CheckpointException.Code.NOT_FOUND, "checkpoint " + id + " has no file " + path)))));
    }

    @FunctionalInterface
    private interface Selection {
        List<StoredFile> of(Manifest manifest) throws IOException;
    }

    private static HeldCheckpoint of(Catalog catalog, CheckpointId id, Selection selection) throws IOException {
        Catalog.LeasedManifest ready = catalog.readyManifestLeased(id);
        try (ObjectReader manifestLease = ready.lease()) {
            List<StoredFile> files = selection.of(ready.manifest());
            return new HeldCheckpoint(ready.manifest(), files, HeldFiles.of(files));
        }
    }

    @Override
    public void close() {
        held.close();
    }
}
