package io.weightstore.weights;

import io.weightstore.store.client.StoreClient;
import java.io.IOException;

/** Stages a manifest state for a test the way every manifest is written: by the holder of its checkpoint's lock. */
final class ManifestRewrites {
    private ManifestRewrites() {}

    static void write(StoreClient store, Manifest manifest) throws IOException {
        try (CatalogLock lock = CatalogLock.acquire(store, manifest.checkpointId(), "test")) {
            new Catalog(store).writeManifest(manifest, lock.owner());
        }
    }
}
