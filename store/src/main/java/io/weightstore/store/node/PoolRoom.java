package io.weightstore.store.node;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.pool.PoolFile;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether a new pool fits on its file system. A pool file is sparse, so creating it always
 * succeeds, but once writes fill the disk or tmpfs under it the node dies (SIGBUS on a mapped
 * page) with every connection it serves: a new pool larger than the free space is refused.
 * An existing pool is left alone: its written pages already count as used on the file system.
 */
final class PoolRoom {
    private PoolRoom() {}

    static void require(Path pool, long capacity) throws StoreException {
        if (Files.exists(pool)) {
            return;
        }
        Path existing = pool.toAbsolutePath().getParent();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return; // nothing of the path exists, not even its root: creating the pool will say what is wrong
        }
        FileStore store;
        long free;
        try {
            store = Files.getFileStore(existing);
            free = store.getUsableSpace();
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot tell the free space for pool " + pool + " on " + existing + ": "
                    + e.getMessage(), e);
        }
        long needed = PoolFile.DATA_START + capacity;
        if (needed > free) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool " + pool + ": capacity " + gib(capacity) + " (" + capacity
                    + " bytes) is more than the " + gib(free) + " free on its file system " + store + "; a pool larger than"
                    + " its free space would crash the node once writes fill it: give it at most "
                    + gib(Math.max(0, free - PoolFile.DATA_START)));
        }
    }

    private static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }
}
