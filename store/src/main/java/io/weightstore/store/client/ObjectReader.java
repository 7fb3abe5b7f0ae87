package io.weightstore.store.client;

import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Stride;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One object opened for reading, under a read lease that lasts until {@link #close()}: the client
 * renews it in the background, so the object cannot be removed (without force) while this handle is
 * open, however long the reads take. Each handle holds a lease of its own; closing one never ends
 * another's. Reads through a handle always see the version it opened: if the object is replaced or
 * removed meanwhile, reads fail with NOT_FOUND instead of mixing versions. Thread-safe.
 */
public final class ObjectReader implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ObjectReader.class);
    /**
     * How long a thread being interrupted (a load cancelled) waits for its leases' release: a release takes
     * milliseconds, and one a master group cannot answer goes on without it while the lease runs out anyway.
     */
    private static final Duration RELEASE_WAIT = Duration.ofSeconds(2);

    private final StoreClient client;
    private final String key;
    private final Duration leaseDuration;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Located located;
    private volatile long renewAtMillis;
    /** When the lease held now runs out unless renewed, by this host's clock ({@link System#nanoTime}). */
    private volatile long leaseEndsNanos;
    private volatile StoreException gone;
    private final List<Runnable> onGone = new CopyOnWriteArrayList<>();

    private ObjectReader(StoreClient client, String key, Located located) {
        this.client = client;
        this.key = key;
        this.leaseDuration = client.options().leaseDuration();
        this.located = located;
        scheduleRenewal();
    }

    static ObjectReader open(StoreClient client, String key) throws StoreException {
        ObjectReader reader = new ObjectReader(client, key, client.locate(key));
        client.leases().track(reader);
        return reader;
    }

    /**
     * Opens each of {@code keys}, in their order, as {@link #open} does, with a call to the master per
     * {@link MasterApi#MAX_LEASES_PER_CALL} keys; all or nothing: a key with no object fails the whole
     * open and ends the leases already taken.
     */
    static List<ObjectReader> openAll(StoreClient client, List<String> keys) throws StoreException {
        List<ObjectReader> readers = new ArrayList<>();
        try {
            for (List<String> some : perCall(keys)) {
                List<Located> located = client.locateAll(some);
                for (int i = 0; i < some.size(); i++) {
                    ObjectReader reader = new ObjectReader(client, some.get(i), located.get(i));
                    client.leases().track(reader);
                    readers.add(reader);
                }
            }
        } catch (StoreException | RuntimeException e) {
            closeAll(readers);
            throw e;
        }
        return readers;
    }

    /**
     * Closes each of {@code readers}, as {@link #close} does, ending their leases with a call to the
     * master per {@link MasterApi#MAX_LEASES_PER_CALL} of them; readers closed already are passed over.
     */
    public static void closeAll(Collection<ObjectReader> readers) {
        Map<StoreClient, List<HeldLease>> byClient = new LinkedHashMap<>();
        for (ObjectReader reader : readers) {
            if (reader.closed.compareAndSet(false, true)) {
                reader.client.leases().untrack(reader);
                byClient.computeIfAbsent(reader.client, client -> new ArrayList<>())
                        .add(new HeldLease(reader.key, reader.located.lease().id()));
            }
        }
        byClient.forEach((client, leases) -> {
            for (List<HeldLease> some : perCall(leases)) {
                try {
                    Uninterrupted.runWithin(RELEASE_WAIT, () -> client.master().releaseLeases(some));
                } catch (StoreException e) {
                    log.debug("could not release {} read leases, from {} on (they expire by themselves): {}", some.size(),
                            some.getFirst().key(), e.getMessage());
                }
            }
        });
    }

    /** {@code items} cut into runs of at most {@link MasterApi#MAX_LEASES_PER_CALL}, a call to the master each. */
    static <T> List<List<T>> perCall(List<T> items) {
        List<List<T>> calls = new ArrayList<>();
        for (int from = 0; from < items.size(); from += MasterApi.MAX_LEASES_PER_CALL) {
            calls.add(items.subList(from, Math.min(items.size(), from + MasterApi.MAX_LEASES_PER_CALL)));
        }
        return calls;
    }

    public String key() {
        return key;
    }

    public ObjectMeta object() {
        return located.object();
    }

    public long size() {
        return located.object().size();
    }

    /** The nodes holding this object's replicas, with their liveness when the lease was last taken. */
    public Map<String, NodeStatus> nodes() {
        return located.nodes();
    }

    /** Reads {@code range} of the object into {@code dst}. */
    public void read(Range range, MemorySegment dst) throws IOException {
        read(List.of(range), dst);
    }

    /** Reads {@code ranges} of the object into {@code dst}, packed one after another in order. */
    public void read(List<Range> ranges, MemorySegment dst) throws IOException {
        client.read(List.of(new Read.Ranges(this, ranges, dst)));
    }

    /** Reads the rows of {@code stride}, packed into {@code dst}: one column shard of a row-major matrix. */
    public void readStrided(Stride stride, MemorySegment dst) throws IOException {
        client.read(List.of(new Read.Strided(this, stride, dst)));
    }

    /** As {@link #readStrided(Stride, MemorySegment)}, giving {@code crc} the rows' CRC32C as they landed. */
    public void readStrided(Stride stride, MemorySegment dst, ArrivedCrc crc) throws IOException {
        client.read(List.of(new Read.Strided(this, stride, dst, Optional.of(crc))));
    }

    /**
     * The whole object as one read-only segment over the pools of nodes on this host, with no byte
     * copied, when every slice has a copy here (else empty: read it instead). The segment lives as
     * long as {@code arena}, and closing the arena unmaps it (a later access fails with
     * IllegalStateException); keep this handle open as long, for its lease is what stops the object
     * from being removed and its room reused under the segment. Nothing is checked yet: see
     * {@link MappedObject#check}.
     */
    public Optional<MappedObject> mapReadOnly(Arena arena) throws IOException {
        return client.mapper().map(located(), arena);
    }

    /**
     * The whole object in the pool files of nodes on this host, open for {@code sendfile(2)}, when
     * every slice has a copy here (else empty). Close it, and end every transfer from it, before this
     * handle's lease ends. Nothing is checked: check them with {@link #checkInPlace} first.
     */
    public Optional<InPlaceFiles> openInPlace() throws IOException {
        return client.mapper().open(located());
    }

    /**
     * Checks every checksum block of the copies {@code files} (from {@link #openInPlace}) hold, read
     * from those files, against the checksums computed when the object was written; CORRUPT names the
     * first slice and block that differ. The check goes by the files, not by where the object is when
     * it runs: a relocation in between may name other copies on this host.
     */
    public void checkInPlace(InPlaceFiles files) throws IOException {
        client.mapper().check(object(), files);
    }

    /**
     * Checks every copy of every slice where it lies: each node verifies all the checksum blocks of
     * its copy, and no data crosses the network. A copy on a node that is down or unknown to the
     * master, or that does not answer, is MISSING; one whose blocks do not match is CORRUPT.
     */
    public List<ReplicaVerdict> checkReplicas() throws IOException {
        return client.checker().check(located());
    }

    /** Each copy by the master's view alone: PRESENT on a node that is up, else MISSING. Nothing is read. */
    public List<ReplicaVerdict> replicaPresence() throws StoreException {
        return ReplicaChecker.presence(located());
    }

    /**
     * Rewrites the copies that {@code verdicts} (from {@link #checkReplicas()}) found CORRUPT or
     * MISSING, and adds copies the slices lack, each from a good copy, written and checked before
     * the master commits it; the object stays readable throughout. This handle then sees the
     * repaired placement. Failures are reported in the outcomes, not thrown.
     */
    public List<RepairOutcome> repair(List<ReplicaVerdict> verdicts) throws IOException {
        List<RepairOutcome> outcomes = client.repairer().repair(located(), verdicts);
        synchronized (this) {
            // Whatever the lease keeper did meanwhile, the placement this handle holds is now stale.
            relocate(located);
        }
        return outcomes;
    }

    /** Where the object is now, for the read path; fails once the handle is closed or the object is gone. */
    Located located() throws StoreException {
        if (closed.get()) {
            throw new IllegalStateException("reader of " + key + " is closed");
        }
        if (gone != null) {
            throw gone;
        }
        return located;
    }

    /**
     * Asks the master again where the object is (a node may be back on another port), unless another
     * thread already did since {@code stale} was read. A lease renewed meanwhile keeps the placement (the
     * same object), so it is no reason not to ask. The lease held goes on while it lasts: see {@link #relocate(Located, boolean)}.
     */
    void relocate(Located stale) throws StoreException {
        relocate(stale, System.nanoTime() - leaseEndsNanos <= 0);
    }

    /**
     * As {@link #relocate(Located)}. The master frees a copy it retires (drained, trimmed, rewritten) only once every
     * lease on the object as old as the retirement has ended, and this handle may still read copies of every placement
     * it was given: jobs of a batch begun before, and views mapped from them. So while {@code heldLeaseLives}, the
     * oldest lease, which covers them all, is kept and the new one ended; otherwise the new one is taken.
     */
    private synchronized void relocate(Located stale, boolean heldLeaseLives) throws StoreException {
        if (located.object() != stale.object() || closed.get()) {
            return;
        }
        MasterApi master = client.master();
        Located fresh;
        try {
            fresh = client.locate(key);
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                throw goneBecause(new StoreException(StoreException.Code.NOT_FOUND, key + " was removed while a reader had it open", e));
            }
            throw e;
        }
        if (!fresh.object().createdAt().equals(stale.object().createdAt())) {
            master.releaseLease(key, fresh.lease().id());
            throw goneBecause(new StoreException(StoreException.Code.NOT_FOUND, key + " was replaced while a reader had it open"));
        }
        if (heldLeaseLives) {
            located = fresh.withLease(located.lease());
            releaseQuietly(fresh);
        } else {
            located = fresh;
            scheduleRenewal();
        }
    }

    /**
     * Runs {@code action} once this handle learns that its object was removed or replaced (on a renewal, or a read that
     * asked the master again): from then on no lease keeps the room this handle read from, and views mapped over it may
     * show another object's bytes once the master gives it out. On the thread that learnt it; at once if it knows already.
     */
    public void whenGone(Runnable action) {
        onGone.add(action);
        if (gone != null && onGone.remove(action)) {
            action.run();
        }
    }

    private StoreException goneBecause(StoreException why) {
        gone = why;
        for (Runnable action : onGone) {
            if (onGone.remove(action)) {
                try {
                    action.run();
                } catch (RuntimeException e) {
                    log.error("an action on the removal of {} failed: {}", key, e.getMessage(), e);
                }
            }
        }
        return why;
    }

    /** Where the object is, when half of its lease has run by {@code nowMillis}; null when no renewal is due. */
    Located dueForRenewal(long nowMillis) {
        return nowMillis < renewAtMillis || closed.get() || gone != null ? null : located;
    }

    /**
     * Takes what renewing the lease of {@code current} (from {@link #dueForRenewal}) gave: the lease
     * extended, unless the placement changed meanwhile; or, when the master no longer knew the lease
     * (it restarted, or the lease ran out), a new lease, taken now.
     */
    void renewed(Located current, Optional<Lease> lease) {
        if (lease.isPresent()) {
            synchronized (this) {
                // A relocation meanwhile kept this lease under another placement, unless it had run out.
                if (located.lease().id() == current.lease().id()) {
                    located = located.withLease(lease.get());
                    scheduleRenewal();
                }
            }
            return;
        }
        try {
            relocate(current, false);
        } catch (StoreException again) {
            log.warn("read lease on {} lost: {}", key, again.getMessage());
        }
    }

    private void scheduleRenewal() {
        renewAtMillis = System.currentTimeMillis() + leaseDuration.toMillis() / 2;
        // Counted from the grant's answer, less a tenth for the time it took: the master counts from its receipt.
        leaseEndsNanos = System.nanoTime() + leaseDuration.toNanos() / 10 * 9;
    }

    /**
     * Fails unless this handle's lease holds now: NOT_FOUND once the object is gone, UNAVAILABLE once the
     * lease ran out because it could not be renewed. For a caller that sends the object's bytes from its
     * room in place (sendfile), which no read of the store checks: the lease is what keeps that room the
     * object's.
     */
    public void requireLeaseHeld() throws StoreException {
        located();
        if (System.nanoTime() - leaseEndsNanos > 0) {
            throw new StoreException(StoreException.Code.UNAVAILABLE, "the read lease on " + key
                    + " ran out: the master could not renew it");
        }
    }

    private void releaseQuietly(Located held) {
        try {
            Uninterrupted.runWithin(RELEASE_WAIT, () -> client.master().releaseLease(key, held.lease().id()));
        } catch (StoreException e) {
            log.debug("could not release the lease on {} (it expires by itself): {}", key, e.getMessage());
        }
    }

    /** Ends this handle's lease; the object may be removed from now on. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            client.leases().untrack(this);
            releaseQuietly(located);
        }
    }
}
