package io.weightstore.weights;

import io.weightstore.store.api.LockState;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.StoreClient;
import java.time.Duration;
import java.util.Optional;
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
    static final Duration TTL = Duration.ofMinutes(1);

    private final StoreClient store;
    private final String name;
    private final LockOwner owner;
    private final ScheduledExecutorService renewer;

    private CatalogLock(StoreClient store, String name, LockOwner owner) {
        this.store = store;
        this.name = name;
        this.owner = owner;
        this.renewer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("catalog-lock").factory());
        long period = TTL.toMillis() / 3;
        renewer.scheduleAtFixedRate(this::stillHeld, period, period, TimeUnit.MILLISECONDS);
    }

    /** Takes the lock, from a dead local owner too, whose unfinished puts are then reclaimed. */
    static CatalogLock acquire(StoreClient store, CheckpointId id, String operation) throws StoreException, CheckpointException {
        String name = Catalog.lockName(id);
        LockOwner owner = LockOwner.current(operation);
        LockState state = store.tryLock(name, owner.toString(), TTL);
        Optional<LockOwner> previous = Optional.empty();
        if (!state.held()) {
            Optional<LockOwner> holder = LockOwner.parse(state.owner());
            if (holder.isPresent() && holder.get().isDeadLocalProcess()) {
                log.warn("taking over the lock on {} from {}, which no longer runs", id, state.owner());
                store.releaseLock(name, state.owner());
                state = store.tryLock(name, owner.toString(), TTL);
                previous = holder;
            }
        }
        if (!state.held()) {
            throw new CheckpointException(CheckpointException.Code.LOCKED, "checkpoint " + id + " is locked by " + state.owner()
                    + " until " + state.expiresAt() + "; another import, delete, prune or replicate of it is running");
        }
        if (previous.isPresent()) {
            // The dead writer's unfinished puts would block the same keys until they expire: free them now.
            try {
                int aborted = store.abortPutsOf(previous.get().toString());
                if (aborted > 0) {
                    log.warn("reclaimed {} unfinished put(s) of {}", aborted, previous.get());
                }
            } catch (StoreException | RuntimeException e) {
                // Taken, and nobody to renew or release it: it would keep every other writer out until it expired.
                try {
                    store.releaseLock(name, owner.toString());
                } catch (StoreException released) {
                    e.addSuppressed(released);
                }
                throw e;
            }
        }
        return new CatalogLock(store, name, owner);
    }

    LockOwner owner() {
        return owner;
    }

    /**
     * Renews the lock, and says whether this process still holds it: in the background while the lock is
     * held, and before a failed import cleans up, since a writer that lost it (paused past its expiry while
     * another took it) must not: the keys are the next holder's.
     */
    boolean stillHeld() {
        return stillHeld(store, name, owner);
    }

    /** Whether {@code owner} still holds lock {@code name}, renewed by asking: for a writer that has only the owner's name. */
    static boolean stillHeld(StoreClient store, String name, LockOwner owner) {
        try {
            store.renewLock(name, owner.toString(), TTL);
            return true;
        } catch (StoreException e) {
            log.error("lost the lock on {}: {}", name, e.getMessage());
            return false;
        }
    }

    /**
     * Fails with what a removal the master refused for want of this lock says to the user, when that was
     * the refusal: the run was paused past the lock's expiry and another writer took it, so it is not the
     * readers' doing and {@code --force} would not help. Any other refusal is the caller's to explain.
     */
    void requireNotLost(CheckpointId id, String verb, StoreException refusal) throws CheckpointException {
        if (refusal.code() == StoreException.Code.FAILED_PRECONDITION && !stillHeld()) {
            throw new CheckpointException(CheckpointException.Code.LOCKED, verb + " of checkpoint " + id + " was refused: "
                    + refusal.getMessage() + " (this run was paused past its lock, and another writer took it); nothing was"
                    + " removed; run " + verb + " again once that writer is done", refusal);
        }
    }

    @Override
    public void close() {
        renewer.shutdownNow();
        try {
            store.releaseLock(name, owner.toString());
        } catch (StoreException e) {
            log.warn("could not release the lock on {} (it expires by itself): {}", name, e.getMessage());
        }
    }
}
