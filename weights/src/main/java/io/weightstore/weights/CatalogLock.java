package io.weightstore.weights;

import io.weightstore.store.StoreClient;
import io.weightstore.store.StoreException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master-held lock on one checkpoint, so two writers on two machines cannot interleave an
 * import or a delete. Renewed in the background while held. A lock left by a process of this host
 * that no longer runs (killed mid-import) is taken over at once instead of waiting for it to expire.
 */
final class CatalogLock implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CatalogLock.class);
    static final long TTL_MS = 60_000;

    private final StoreClient store;
    private final String name;
    private final String owner;
    private final ScheduledExecutorService renewer;

    private CatalogLock(StoreClient store, String name, String owner) {
        this.store = store;
        this.name = name;
        this.owner = owner;
        this.renewer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("catalog-lock").factory());
        renewer.scheduleAtFixedRate(this::renew, TTL_MS / 3, TTL_MS / 3, TimeUnit.MILLISECONDS);
    }

    static CatalogLock acquire(StoreClient store, String id, String operation) throws StoreException, CheckpointException {
        String name = CatalogKeys.lock(id);
        String owner = hostName() + "/" + ProcessHandle.current().pid() + "/" + operation + "/" + UUID.randomUUID();
        StoreClient.LockState state = store.tryLock(name, owner, TTL_MS);
        if (!state.held() && heldByDeadLocalProcess(state.owner())) {
            log.warn("taking over the lock on {} from {}, which no longer runs", id, state.owner());
            store.releaseLock(name, state.owner());
            state = store.tryLock(name, owner, TTL_MS);
        }
        if (!state.held()) {
            throw new CheckpointException(CheckpointException.Code.LOCKED, "checkpoint " + id + " is locked by " + state.owner()
                    + " until " + Instant.ofEpochMilli(state.expiresMs()) + "; another import or delete is running");
        }
        return new CatalogLock(store, name, owner);
    }

    /** Owners are host/pid/operation/nonce: a holder on this host whose pid is gone will never release it. */
    private static boolean heldByDeadLocalProcess(String holder) {
        String[] parts = holder.split("/");
        if (parts.length < 2 || !parts[0].equals(hostName())) {
            return false;
        }
        try {
            return ProcessHandle.of(Long.parseLong(parts[1])).map(p -> !p.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private void renew() {
        try {
            store.renewLock(name, owner, TTL_MS);
        } catch (StoreException e) {
            log.error("lost the lock on {}: {}", name, e.getMessage());
        }
    }

    @Override
    public void close() {
        renewer.shutdownNow();
        try {
            store.releaseLock(name, owner);
        } catch (StoreException e) {
            log.warn("could not release the lock on {} (it expires by itself): {}", name, e.getMessage());
        }
    }
}
