package io.weightstore.weights.loader;

import java.nio.file.Path;

/**
 * How to load.
 *
 * @param store master HOST:PORT, or null for the usual selection ($WEIGHTSTORE_MASTER, config, embedded)
 * @param credentials credentials directory for the cluster, or null for the usual selection ($WEIGHTSTORE_CREDENTIALS, config)
 * @param bufferBytes off-heap memory for tensor data: two halves, one being read while the other is consumed
 * @param cacheDir where metadata files go, or null for the store's own cache, a directory per set of metadata files under
 *     $WEIGHTSTORE_HOME/metadata/&lt;id&gt;; a directory given here must not be shared by loads of different versions at once
 * @param bufferPool buffers shared with other sources, or null for the source's own (freed when it closes)
 * @param importer the identity that must have imported the checkpoint ("writer importer", as the master names it), or
 *     null to accept whoever the manifest names
 * @param tensorChecks whether to check each tensor and shard received against the CRC32C the import recorded
 * @param checkMapped when a file is seen in place in pools on this host, check its CRC32C blocks before handing out any of
 *     it; off, it is trusted as checked when written (and by {@code model verify})
 * @param columnLayouts whether a tensor-parallel load reads its column shards from the files' column layouts for its world
 *     size where the import wrote them ({@code model import --tp-layout}); off, it reads them strided from the files
 */
public record LoadOptions(String store, Path credentials, int connections, long bufferBytes, Path cacheDir, StreamBufferPool bufferPool,
        String importer, boolean tensorChecks, boolean checkMapped, boolean columnLayouts) {
    public static final long DEFAULT_BUFFER = 512L << 20;

    public LoadOptions {
        if (bufferBytes < 128) {
            throw new IllegalArgumentException("buffer must be at least 128 bytes: bufferBytes=" + bufferBytes);
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1: connections=" + connections);
        }
    }

    public static LoadOptions defaults() {
        return new LoadOptions(null, null, 4, DEFAULT_BUFFER, null, null, null, true, true, true);
    }

    public LoadOptions withBuffer(long bytes) {
        return new LoadOptions(store, credentials, connections, bytes, cacheDir, bufferPool, importer, tensorChecks, checkMapped,
                columnLayouts);
    }

    public LoadOptions withStore(String master) {
        return new LoadOptions(master, credentials, connections, bufferBytes, cacheDir, bufferPool, importer, tensorChecks,
                checkMapped, columnLayouts);
    }

    public LoadOptions withCacheDir(Path dir) {
        return new LoadOptions(store, credentials, connections, bufferBytes, dir, bufferPool, importer, tensorChecks, checkMapped,
                columnLayouts);
    }

    public LoadOptions withBufferPool(StreamBufferPool pool) {
        return new LoadOptions(store, credentials, connections, bufferBytes, cacheDir, pool, importer, tensorChecks, checkMapped,
                columnLayouts);
    }

    public LoadOptions withCredentials(Path dir) {
        return new LoadOptions(store, dir, connections, bufferBytes, cacheDir, bufferPool, importer, tensorChecks, checkMapped,
                columnLayouts);
    }

    public LoadOptions withConnections(int n) {
        return new LoadOptions(store, credentials, n, bufferBytes, cacheDir, bufferPool, importer, tensorChecks, checkMapped,
                columnLayouts);
    }

    public LoadOptions withImporter(String identity) {
        return new LoadOptions(store, credentials, connections, bufferBytes, cacheDir, bufferPool, identity, tensorChecks,
                checkMapped, columnLayouts);
    }

    public LoadOptions withTensorChecks(boolean enabled) {
        return new LoadOptions(store, credentials, connections, bufferBytes, cacheDir, bufferPool, importer, enabled, checkMapped,
                columnLayouts);
    }

    public LoadOptions withMappedCheck(boolean check) {
        return new LoadOptions(store, credentials, connections, bufferBytes, cacheDir, bufferPool, importer, tensorChecks, check,
                columnLayouts);
    }

    public LoadOptions withColumnLayouts(boolean read) {
        return new LoadOptions(store, credentials, connections, bufferBytes, cacheDir, bufferPool, importer, tensorChecks, checkMapped,
                read);
    }
}
