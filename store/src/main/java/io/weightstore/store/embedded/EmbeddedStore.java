package io.weightstore.store.embedded;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterCore;
import io.weightstore.store.master.RocksMetadataStore;
import io.weightstore.store.master.RocksNativeLibrary;
import io.weightstore.store.pool.PoolFile;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store in-process on a local directory, for a machine with no cluster: the master's metadata
 * in {@code master/} and one pool file {@code pool}, held by one process at a time. Same client API
 * and semantics as a cluster; bytes move by memory copy.
 */
public final class EmbeddedStore {
    /** Default pool size; the file is sparse, so unused capacity takes no disk. */
    public static final long DEFAULT_CAPACITY = 64L << 30;
    /**
     * What holds the store, as the next process to open it is told (the CLI sets {@code weightstore}
     * and its verb); without it, the program's file name. Never a command line: it may hold a secret.
     */
    public static final String HOLDER_PROPERTY = "weightstore.holder";
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    private EmbeddedStore() {}

    /**
     * Starts loading, on a daemon thread, the native libraries an open needs before it reads a byte:
     * RocksDB's, for the master's metadata, and the CRC32C one every read checks with (its first call
     * links it). In a fresh JVM on a 2-core VM they took 0.16-0.23 s and 0.08-0.10 s of the 0.6 s from the
     * start of a Jlama load's open to its first read; a process that will open the store soon starts this
     * first, so that they load beside the rest of its start. A failure is the open's to report: it loads
     * them again.
     */
    public static void startLoadingNativeLibraries() {
        Thread.ofPlatform().daemon().name("weightstore-native-libraries").start(() -> {
            try {
                RocksNativeLibrary.load();
                Checksums.crc32c(MemorySegment.ofArray(new byte[Long.BYTES]));
            } catch (RuntimeException | LinkageError e) {
                log.debug("loading the embedded store's native libraries ahead failed; its open will try again", e);
            }
        });
    }

    /**
     * Opens the store in {@code dir}, creating it with a pool of {@code capacityIfNew} bytes the first
     * time; an existing pool keeps the size it was created with.
     */
    public static StoreClient open(Path dir, long capacityIfNew, ClientOptions options) throws StoreException {
        HolderLock lock = HolderLock.acquire(dir);
        MasterCore master = null;
        try {
            master = MasterCore.open(RocksMetadataStore.open(dir.resolve("master")), MasterConfig.defaults());
            Path poolPath = dir.resolve("pool");
            try (PoolFile pool = Files.exists(poolPath) ? PoolFile.open(poolPath, true)
                    : PoolFile.openOrCreate(poolPath, capacityIfNew)) {
                master.registerNode(new NodeInfo(pool.nodeId(), Endpoint.inProcess(), pool.path().toAbsolutePath().toString(),
                        pool.uuid(), pool.capacity()));
            }
            return StoreClient.over(master, options, lock);
        } catch (StoreException | RuntimeException e) {
            if (master != null) {
                master.close();
            }
            try {
                lock.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
