package io.weightstore.store.master;

import static io.weightstore.store.api.StoreException.Code.ALREADY_EXISTS;
import static io.weightstore.store.api.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.api.StoreException.Code.INVALID_ARGUMENT;
import static io.weightstore.store.api.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.api.StoreException.Code.NO_SPACE;
import static io.weightstore.store.api.StoreException.Code.PERMISSION_DENIED;
import static io.weightstore.store.api.StoreException.Code.UNAVAILABLE;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.Caller;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectKeys;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.api.StoredNode;
import io.weightstore.store.metrics.ClusterView;
import io.weightstore.store.metrics.MasterMetrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master: node registry, object table with slice placement, read leases, locks and pins, over
 * crash-safe metadata. Allocation state and liveness are rebuilt from the metadata at start-up.
 * Every operation holds the one monitor: metadata operations are few and small next to the bytes
 * they describe, and a single order of events keeps the invariants obvious.
 */
public final class MasterCore implements MasterApi, ClusterView {
    private static final Logger log = LoggerFactory.getLogger(MasterCore.class);
    private static final int MAX_LIST_LIMIT = 10_000;
    private static final int DEFAULT_LIST_LIMIT = 1_000;
    /**
     * The longest read lease granted: a reader that dies holds its object from removal, replacement and
     * eviction no longer than this (readers ask for 30 s and renew at half).
     */
    static final Duration MAX_LEASE = Duration.ofMinutes(10);
    /** The longest a lock is granted for at once: a holder renews it, so one that died keeps others out no longer. */
    static final Duration MAX_LOCK_TTL = Duration.ofMinutes(10);
    /** The longest lock name or owner; every writer may name locks, and each is a record every master of a group keeps. */
    static final int MAX_LOCK_TEXT = 1024;
    /**
     * How long a lock's record outlives its expiry. Its holder, paused past the expiry while no one else took it, may still
     * renew it until the record goes; the records of locks no one asks for again are deleted then, so they never pile up.
     */
    static final Duration EXPIRED_LOCKS_KEPT = Duration.ofHours(1);
    /** Records written or deleted per batch in the background: well under what any metadata store takes in one write. */
    private static final int RECORDS_PER_BACKGROUND_BATCH = 64;
    private static final long LOCK_REAP_PERIOD_MS = 60_000;

    /**
     * How often the read times of the objects located since are recorded: eviction after a restart or
     * take-over orders objects by reads at most this much out of date (a clean close records them all), and
     * a fleet's loads add a few batched writes a minute, none to a locate's own write.
     */
    static final long READ_TIME_STEP = 60_000;

    private final MetadataStore metadata;
    private final MasterConfig config;
    private final LongSupplier clock;
    private final NodeRegistry nodes;
    private final LeaseTable leases;
    private final Placement placement = new SpreadPlacement();
    private final Eviction eviction = new LeastRecentlyRead();
    private final Map<String, PutGrant> pending = new LinkedHashMap<>();
    private final Map<String, Long> lastRead = new HashMap<>();
    /** Objects located since their read times were last recorded. */
    private final Set<String> unrecordedReads = new HashSet<>();
    private long readTimesRecordedAt;
    private final Replication replication;

    /**
     * Ids of released, expired or orphaned leases whose records the reaper deletes in batches: a
     * record deleted late only keeps an object leased a little longer after a take-over, never less.
     */
    private final Queue<Long> staleLeases = new ArrayDeque<>();
    /** When {@link #reapExpiredLocks} looks again; guarded by the monitor. */
    private long nextLockReap;
    private final ScheduledExecutorService reaper;
    private final MasterMetrics metrics;
    private final long openedAt;
    private boolean closed;
    private long objectCount;

    private MasterCore(MetadataStore metadata, MasterConfig config, LongSupplier clock, MasterMetrics metrics) throws StoreException {
        this.metadata = metadata;
        this.config = config;
        this.clock = clock;
        this.metrics = metrics;
        this.openedAt = clock.getAsLong();
        this.readTimesRecordedAt = openedAt;
        this.nodes = new NodeRegistry(clock, config.nodeDeadline());
        this.leases = new LeaseTable(clock.getAsLong());
        this.replication = new Replication(metadata, nodes, leases, config, clock, placement);
        recover();
        this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("master-reaper").factory());
        reaper.scheduleWithFixedDelay(this::reap, 1, 1, TimeUnit.SECONDS);
    }

    /** A master over the metadata in {@code store}; closing the master closes it. */
    public static MasterCore open(MetadataStore store, MasterConfig config) throws StoreException {
        return open(store, config, new MasterMetrics());
    }

    /** As {@link #open(MetadataStore, MasterConfig)}, counting evictions and node liveness changes in {@code metrics}. */
    public static MasterCore open(MetadataStore store, MasterConfig config, MasterMetrics metrics) throws StoreException {
        return open(store, config, System::currentTimeMillis, metrics);
    }

    static MasterCore open(MetadataStore store, MasterConfig config, LongSupplier clock) throws StoreException {
        return open(store, config, clock, new MasterMetrics());
    }

    private static MasterCore open(MetadataStore store, MasterConfig config, LongSupplier clock, MasterMetrics metrics)
            throws StoreException {
        try {
            return new MasterCore(store, config, clock, metrics);
        } catch (StoreException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private void recover() throws StoreException {
        for (StoredNode node : metadata.nodes()) {
            nodes.recover(node.info());
            nodes.drain(node.info().nodeId(), node.draining());
        }
        List<ObjectMeta> objects = metadata.objects("", "", Integer.MAX_VALUE);
        for (ObjectMeta object : objects) {
            nodes.reserve(object);
            lastRead.put(object.key(), object.createdAt().toEpochMilli());
            replication.track(object);
        }
        objectCount = objects.size();
        for (PutGrant put : metadata.pendingPuts()) {
            pending.put(put.putId(), put);
            nodes.reserve(put.object());
            grantedUntilDeadline(put);
        }
        int retired = 0;
        MetadataBatch stray = new MetadataBatch();
        for (RetiredRange range : metadata.retiredRanges()) {
            if (replication.recoverRetired(range)) {
                retired++;
            } else {
                log.error("retired range {} of {} bytes, once of {}, is on no known node or overlaps what another object or put holds;"
                        + " its record is dropped", range.replica(), range.length(), range.key());
                stray.deleteRetired(range.replica());
            }
        }
        int bad = 0;
        for (BadCopy copy : metadata.badCopies()) {
            if (metadata.object(copy.key()).filter(o -> o.createdAt().equals(copy.version()) && copy.slice() < o.slices().size()
                    && o.slice(copy.slice()).replicas().contains(copy.replica())).isPresent()) {
                replication.recoverBad(copy);
                bad++;
            } else {
                // Its object left or was replaced, or the copy was dropped, in parts of a change cut short: it marks nothing.
                stray.deleteBadCopy(copy.key(), copy.slice(), copy.replica().nodeId());
            }
        }
        for (ReadTime read : metadata.readTimes()) {
            if (lastRead.containsKey(read.key())) {
                lastRead.merge(read.key(), read.readAt().toEpochMilli(), Math::max);
            } else {
                // Its object left in a change cut short before the record's deletion: it times nothing.
                stray.deleteReadTime(read.key());
            }
        }
        if (!stray.isEmpty()) {
            metadata.applyInParts(stray);
        }
        long now = clock.getAsLong();
        int leased = 0;
        for (ReadLease lease : metadata.leases()) {
            if (lease.expiresAt().toEpochMilli() >= now) {
                leases.recover(lease);
                leased++;
            } else {
                staleLeases.add(lease.leaseId());
            }
        }
        log.info("master recovered {} nodes, {} objects, {} pending puts, {} read leases, {} retired ranges, {} bad copies",
                nodes.statuses().size(), objectCount, pending.size(), leased, retired, bad);
    }

    // ---- nodes

    @Override
    public synchronized Duration registerNode(NodeInfo node) throws StoreException {
        if (node.nodeId().isEmpty() || node.capacity() <= 0) {
            throw new StoreException(INVALID_ARGUMENT, "node registration needs an id and a capacity > 0: nodeId="
                    + node.nodeId() + " capacity=" + node.capacity());
        }
        Optional<NodeInfo> known = nodes.get(node.nodeId());
        if (known.isPresent() && known.get().capacity() != node.capacity()) {
            throw new StoreException(INVALID_ARGUMENT, "node " + node.nodeId() + " registered with capacity "
                    + known.get().capacity() + ", now " + node.capacity() + "; a pool cannot change size");
        }
        if (known.isPresent() && !known.get().poolUuid().equals(node.poolUuid())) {
            // A node id names one pool, which is what makes a recorded replica trustworthy: a new pool under a
            // known id is refused until nothing refers to the old pool. When the node is down, this is it coming
            // back without its data (on a secure cluster only the holder of its certificate can register it): its
            // copies are gone, so they are made again elsewhere at once, and once the old pool holds nothing the
            // master forgets it, and the node's next registration is that of a new, empty node.
            boolean back = !nodes.isUp(known.get());
            if (back && !nodes.isPoolLost(node.nodeId())) {
                log.warn("node {} came back with another pool ({}): its old pool's copies are lost, and are made again elsewhere",
                        node.nodeId(), node.poolPath());
                nodes.poolLost(node.nodeId());
                replication.changedEverywhere();
            }
            throw new StoreException(INVALID_ARGUMENT, "node " + node.nodeId() + " registered with pool " + known.get().poolUuid()
                    + ", now with pool " + node.poolUuid() + " (" + node.poolPath() + "); a node id names one pool: "
                    + (back ? "the old pool's copies are being made again on other nodes, and once none is left there the node may"
                            + " register with its new pool; or forget the old one (weightstore store node forget " + node.nodeId()
                            + ") and start the node again" : "node " + node.nodeId() + " is up with its own pool"));
        }
        // A new node where a node that is down served: that node's process is gone, and with it (a new pool) its copies.
        for (NodeStatus other : nodes.statuses()) {
            if (!other.nodeId().equals(node.nodeId()) && !other.up() && !node.endpoint().isInProcess()
                    && other.endpoint().equals(node.endpoint()) && !nodes.isPoolLost(other.nodeId())) {
                log.warn("node {} serves at {}, where node {} served before it went down: that node's copies are lost, and are made"
                        + " again elsewhere", node.nodeId(), node.endpoint(), other.nodeId());
                nodes.poolLost(other.nodeId());
                replication.changedEverywhere();
            }
        }
        metadata.apply(new MetadataBatch().putNode(node, nodes.isDraining(node.nodeId())));
        nodes.register(node);
        replication.registered(node.nodeId());
        log.info("node {} registered at {} with {} bytes ({})", node.nodeId(), node.endpoint(), node.capacity(),
                known.isPresent() ? "known" : "new");
        return config.heartbeatInterval();
    }

    @Override
    public NodeOrders heartbeat(NodeReport report) throws StoreException {
        boolean wasUp = nodes.heard(report.nodeId());
        synchronized (this) {
            if (!nodes.heartbeat(report.nodeId(), report.load())) {
                return NodeOrders.unknown();
            }
            if (!wasUp) {
                replication.changedEverywhere(); // its copies serve again
            }
            return replication.orders(report);
        }
    }

    @Override
    public synchronized void finishCopy(String nodeId, String taskId, CopyOutcome outcome) throws StoreException {
        replication.finish(nodeId, taskId, outcome);
    }

    // ---- puts

    @Override
    public synchronized PutGrant putStart(String key, long size, PutOptions options) throws StoreException {
        ObjectKeys.validate(key);
        int replicas = options.replicas();
        long sliceSize = options.sliceSize() == 0 ? config.sliceSize() : options.sliceSize();
        if (size < 0 || sliceSize <= 0 || sliceSize % config.checksumBlockSize() != 0) {
            throw new StoreException(INVALID_ARGUMENT, "put of " + key + ": size must be >= 0 and the slice size a multiple of "
                    + config.checksumBlockSize() + ": size=" + size + " sliceSize=" + sliceSize);
        }
        if (metadata.object(key).isPresent()) {
            if (!options.replace()) {
                throw new StoreException(ALREADY_EXISTS, "object " + key + " exists; put it with replace to overwrite it");
            }
            int readers = leases.holders(key, clock.getAsLong());
            if (readers > 0) {
                throw new StoreException(FAILED_PRECONDITION, "object " + key + " is being read by " + readers
                        + " reader(s); replacing it would pull it from under them, so try again when they finish");
            }
        }
        requireLockHeld("put of " + key, options.lock(), options.writer());
        for (PutGrant put : List.copyOf(pending.values())) {
            if (!put.object().key().equals(key)) {
                continue;
            }
            // A put made under the lock this writer holds now, by a writer who held it before, can never be sealed: its
            // writer died or was paused past the lock (another host, a reboot), and waiting for its deadline would stall
            // the run that takes over.
            if (!options.lock().isEmpty() && put.lock().equals(options.lock()) && !put.writer().equals(options.writer())) {
                log.warn("aborting put {} of {}: made under lock {} by {}, which {} holds now", put.putId(), key, put.lock(),
                        put.writer(), options.writer());
                giveUp(put);
                continue;
            }
            // Past its deadline it can never be sealed; the reaper would abort it, but a master that lives for one short
            // command (an embedded store's) may never run it, and the key would stay taken for good.
            if (put.deadline().toEpochMilli() < clock.getAsLong()) {
                log.warn("aborting put {} of {}: its deadline {} has passed", put.putId(), key, put.deadline());
                giveUp(put);
                continue;
            }
            throw new StoreException(ALREADY_EXISTS, "object " + key + " is being written by put " + put.putId());
        }
        List<NodeInfo> up = nodes.placeable();
        if (up.size() < replicas) {
            throw new StoreException(UNAVAILABLE, "put of " + key + " needs " + replicas + " nodes up, " + up.size() + " are"
                    + (up.size() < nodes.up().size() ? " (not counting nodes being drained)" : ""));
        }
        // Before any eviction: a put the whole cluster could not hold would otherwise evict everything it may, then fail.
        long capacity = nodes.capacity();
        if (size > capacity / replicas) {
            throw new StoreException(NO_SPACE, "no room for " + key + " (" + size + " bytes x " + replicas + " replicas): the"
                    + " nodes hold " + capacity + " bytes in all");
        }
        // Room held from the caller's own earlier puts is theirs to use again; what this put does not take stays held.
        List<GrantedRanges.Held> lent = new ArrayList<>(nodes.lendHeld(Caller.current()));
        ObjectMeta object;
        try {
            evictIfNeeded(size * replicas, key, lent);
            object = place(key, size, sliceSize, options, up);
        } finally {
            nodes.holdUnused(lent);
        }
        Map<String, NodeInfo> involved = new LinkedHashMap<>();
        nodes.holders(object).forEach((id, status) -> involved.put(id, status.info()));
        PutGrant put = new PutGrant(UUID.randomUUID().toString(), object, involved,
                Instant.ofEpochMilli(clock.getAsLong() + config.putTimeout().toMillis()), options.writer(), options.lock());
        try {
            metadata.apply(new MetadataBatch().putPending(put));
        } catch (StoreException | RuntimeException e) {
            // No record names the room just placed, so neither a reaper nor a restart would ever free it.
            nodes.release(object);
            throw e;
        }
        pending.put(put.putId(), put);
        grantedUntilDeadline(put);
        return put;
    }

    private ObjectMeta place(String key, long size, long sliceSize, PutOptions options, List<NodeInfo> up) throws StoreException {
        int replicas = options.replicas();
        int sliceCount = Math.toIntExact(Math.ceilDiv(size, sliceSize));
        List<SliceMeta> slices = new ArrayList<>(sliceCount);
        for (int i = 0; i < sliceCount; i++) {
            long length = Math.min(sliceSize, size - i * sliceSize);
            List<ReplicaRef> placed = placement.place(i, length, replicas, up, nodes);
            slices.add(new SliceMeta(i * sliceSize, length, placed, BlockCrcs.none()));
            if (placed.size() < replicas) {
                nodes.release(unsealed(key, size, sliceSize, options, slices));
                throw new StoreException(NO_SPACE, "no room for " + key + " (" + size + " bytes x " + replicas
                        + " replicas): slice " + i + " fits on fewer than " + replicas + " nodes");
            }
        }
        return unsealed(key, size, sliceSize, options, slices);
    }

    /**
     * A put owned by an identity is one a secure master seals write grants for, each valid until the put's
     * deadline; its room must not go to another put before then, whenever the put ends.
     */
    private void grantedUntilDeadline(PutGrant put) {
        if (!put.object().owner().isEmpty()) {
            nodes.granted(put.object(), put.deadline(), put.object().owner());
        }
    }

    /**
     * The object a put reserves, owned by the {@link Caller} who starts it: on a secure cluster the write
     * grants bind every byte of the put to that caller, so it is who wrote the object.
     */
    private ObjectMeta unsealed(String key, long size, long sliceSize, PutOptions options, List<SliceMeta> slices) {
        return new ObjectMeta(key, size, sliceSize, config.checksumBlockSize(), slices, options.pin(),
                Instant.ofEpochMilli(clock.getAsLong()), options.replicas(), Caller.current(), options.autoReplicas(), List.of());
    }

    /**
     * Evicts, least recently read first, only as much as makes {@code incoming} bytes fit under the high watermark,
     * and lends the caller's put what its own evicted objects held ({@code lent}). An object whose room write grants
     * still reach, other than the caller's, is passed over: removing it would free nothing until they expire, so
     * every further object would be evicted for nothing.
     */
    private void evictIfNeeded(long incoming, String forKey, List<GrantedRanges.Held> lent) throws StoreException {
        long limit = (long) (config.highWatermark() * nodes.capacity());
        if (nodes.used() + incoming <= limit) {
            return;
        }
        String caller = Caller.current();
        for (ObjectMeta victim : eviction.order(evictable(), lastRead)) {
            if (nodes.used() + incoming <= limit) {
                break;
            }
            if (nodes.freedFor(victim, caller, node -> true) == 0) {
                continue;
            }
            log.info("evicting {} ({} bytes, unpinned, least recently read) to make room for {}", victim.key(), victim.size(),
                    forKey);
            removeObject(victim);
            metrics.evicted(victim.size());
            lent.addAll(nodes.lendHeld(caller));
        }
    }

    /** Objects eviction may take: unpinned and not being read. */
    private List<ObjectMeta> evictable() throws StoreException {
        long now = clock.getAsLong();
        return metadata.objects("", "", Integer.MAX_VALUE).stream().filter(o -> !o.pinned() && !leases.isLeased(o.key(), now))
                .toList();
    }

    @Override
    public synchronized ObjectMeta putEnd(String putId, List<BlockCrcs> checksums) throws StoreException {
        PutGrant put = pending.get(putId);
        if (put == null) {
            throw new StoreException(NOT_FOUND, "put " + putId + " is unknown, expired or already ended");
        }
        ObjectMeta object = put.object();
        // The owner recorded is the one who wrote the bytes, so no one else may vouch for them with checksums.
        if (!object.owner().equals(Caller.current())) {
            throw new StoreException(PERMISSION_DENIED, "put of " + object.key() + " was started by " + Holders.named(object.owner())
                    + "; only its writer may seal it, not " + Holders.named(Caller.current()));
        }
        requireLockHeld("put of " + object.key(), put.lock(), put.writer());
        if (checksums.size() != object.slices().size()) {
            throw new StoreException(INVALID_ARGUMENT, "put of " + object.key() + " has " + object.slices().size()
                    + " slices, got checksums for " + checksums.size());
        }
        List<SliceMeta> slices = new ArrayList<>();
        for (int i = 0; i < checksums.size(); i++) {
            SliceMeta slice = object.slice(i);
            long blocks = Math.ceilDiv(slice.length(), (long) object.checksumBlockSize());
            if (checksums.get(i).count() != blocks) {
                throw new StoreException(INVALID_ARGUMENT, "put of " + object.key() + ": slice " + i + " has " + blocks
                        + " checksum blocks, got " + checksums.get(i).count());
            }
            slices.add(slice.withCrcs(checksums.get(i)));
        }
        Optional<ObjectMeta> previous = metadata.object(object.key());
        // The creation time is the object's version: repairs, copies and the gateway's manifests tell a replace by it, so a
        // replace sealed within the millisecond of what it replaces (or by a leader whose clock is behind) still gets a newer one.
        long sealedAt = Math.max(clock.getAsLong(), previous.map(p -> p.createdAt().toEpochMilli() + 1).orElse(Long.MIN_VALUE));
        ObjectMeta sealed = object.withSlices(slices).withCreatedAt(Instant.ofEpochMilli(sealedAt));
        // putStart refused a replace while the object was read; a reader may have opened it since, and sealing now would
        // free the copies it reads for the next put to overwrite.
        int readers = previous.isPresent() ? leases.holders(sealed.key(), clock.getAsLong()) : 0;
        if (readers > 0) {
            throw new StoreException(FAILED_PRECONDITION, "object " + sealed.key() + " is being read by " + readers + " reader(s)"
                    + " who opened it while put " + putId + " replaced it; sealing would pull it from under them, so seal again"
                    + " when they finish, or abort");
        }
        metadata.apply(new MetadataBatch().deletePending(putId).putObject(sealed));
        pending.remove(putId);
        if (previous.isPresent()) {
            replication.unmarkLeft(Set.of(sealed.key()));
            nodes.release(previous.get(), replication.removed(sealed.key()));
        } else {
            objectCount++;
        }
        replication.track(sealed);
        lastRead.put(sealed.key(), sealed.createdAt().toEpochMilli());
        return sealed;
    }

    @Override
    public synchronized void putAbort(String putId) throws StoreException {
        PutGrant put = pending.get(putId);
        if (put == null) {
            return;
        }
        // As with a seal: the id is no secret (a put of the same key is refused naming it), so only its writer may end it.
        if (!put.object().owner().equals(Caller.current())) {
            throw new StoreException(PERMISSION_DENIED, "put of " + put.object().key() + " was started by "
                    + Holders.named(put.object().owner()) + "; only its writer may abort it, not " + Holders.named(Caller.current()));
        }
        abort(put);
    }

    /**
     * Ends a put the master itself gives up: its deadline passed, or its writer lost its lock or is gone. The writer did not
     * end it, and may still be sending (paused past its lock, cut off from this master), so its room is held from every
     * put until no grant of it can reach the room; see {@link #holdFromEveryPut}.
     */
    private void giveUp(PutGrant put) throws StoreException {
        holdFromEveryPut(put);
        abort(put);
    }

    /**
     * Holds {@code put}'s room, once freed, from every put until its deadline (and the clock skew) has passed, its own
     * identity's too: a put whose writer lost its lock is taken over by one who may share that identity (two hosts of one
     * importer), whose grants would reach the room while the first still writes, and an insecure writer has no grant at
     * all, only the deadline it stops at by itself.
     */
    private void holdFromEveryPut(PutGrant put) {
        nodes.granted(put.object(), put.deadline(), "");
    }

    private void abort(PutGrant put) throws StoreException {
        // The record first: while it stands the put is still pending (a restart loads it), so its room stays taken.
        metadata.apply(new MetadataBatch().deletePending(put.putId()));
        pending.remove(put.putId());
        nodes.release(put.object());
    }

    @Override
    public synchronized int abortPutsOf(String writer) throws StoreException {
        if (writer.isEmpty()) {
            throw new StoreException(INVALID_ARGUMENT, "name the writer whose puts to abort");
        }
        int aborted = 0;
        for (PutGrant put : List.copyOf(pending.values())) {
            // The writer name is the client's to choose; only the identity that started a put may end it this way.
            if (put.writer().equals(writer) && put.object().owner().equals(Caller.current())) {
                log.warn("reclaiming put {} of {}: its writer {} is gone", put.putId(), put.object().key(), writer);
                abort(put);
                aborted++;
            }
        }
        return aborted;
    }

    private void reap() {
        watchLiveness();
        reapExpiredPuts();
        heal();
        reapLeaseRecords();
        reapExpiredLocks();
        recordReadTimes(false);
    }

    /**
     * The replicas' periodic look (see {@link Replication}), a page of objects at a time under the
     * monitor, so calls go on between pages however many objects there are.
     */
    private void heal() {
        try {
            Optional<Replication.Pass> pass;
            synchronized (this) {
                pass = replication.tick();
            }
            if (pass.isEmpty()) {
                return;
            }
            // A pass is many pages: one interrupted (the master closing) stops between them, never on a closed store.
            while (!Thread.currentThread().isInterrupted()) {
                synchronized (this) {
                    if (!replication.step(pass.get())) {
                        for (String nodeId : replication.finish(pass.get())) {
                            log.warn("node {} came back with another pool, and its old pool's copies have all been made again: forgetting"
                                    + " the old pool, so the node can register with its new one", nodeId);
                            forgetNode(nodeId, true);
                        }
                        return;
                    }
                }
            }
        } catch (StoreException | RuntimeException e) {
            log.error("looking after the replicas failed (will look again): {}", e.getMessage(), e);
        }
    }

    /**
     * Deletes the records of ended leases, a batch at a time, outside the monitor: thousands of them
     * (a fleet of loaders closing) would otherwise hold every other call for as many writes. Nothing
     * else writes these records once their lease has ended, so the order does not matter.
     */
    private void reapLeaseRecords() {
        synchronized (this) {
            staleLeases.addAll(leases.dropExpired(clock.getAsLong()));
        }
        while (true) {
            MetadataBatch batch = new MetadataBatch();
            List<Long> ids = new ArrayList<>();
            synchronized (this) {
                for (Long id; ids.size() < RECORDS_PER_BACKGROUND_BATCH && (id = staleLeases.poll()) != null; ) {
                    ids.add(id);
                    batch.deleteLease(id);
                }
            }
            if (ids.isEmpty()) {
                return;
            }
            try {
                metadata.apply(batch);
            } catch (StoreException e) {
                synchronized (this) {
                    staleLeases.addAll(ids);
                }
                log.warn("cannot delete {} ended lease records (will retry): {}", ids.size(), e.getMessage());
                return;
            }
        }
    }

    /**
     * Records the read times of the objects located since the last time, once a {@link #READ_TIME_STEP}
     * has passed or when {@code now}: a batch at a time outside the monitor, as the ended leases' records
     * are deleted, so the master's other writes go on between them. An object removed meanwhile may be
     * left a record, which recovery drops; those not written are tried again at the next step.
     */
    private void recordReadTimes(boolean now) {
        List<ReadTime> due = new ArrayList<>();
        synchronized (this) {
            long at = clock.getAsLong();
            if (unrecordedReads.isEmpty() || !now && at - readTimesRecordedAt < READ_TIME_STEP) {
                return;
            }
            readTimesRecordedAt = at;
            unrecordedReads.forEach(key -> due.add(new ReadTime(key, Instant.ofEpochMilli(lastRead.get(key)))));
            unrecordedReads.clear();
        }
        for (int from = 0; from < due.size(); from += RECORDS_PER_BACKGROUND_BATCH) {
            MetadataBatch batch = new MetadataBatch();
            due.subList(from, Math.min(due.size(), from + RECORDS_PER_BACKGROUND_BATCH)).forEach(batch::putReadTime);
            try {
                metadata.apply(batch);
            } catch (StoreException e) {
                List<ReadTime> left = due.subList(from, due.size());
                synchronized (this) {
                    left.stream().map(ReadTime::key).filter(lastRead::containsKey).forEach(unrecordedReads::add);
                }
                log.warn("cannot record the read times of {} objects (will retry): {}", left.size(), e.getMessage());
                return;
            }
        }
    }

    /**
     * Logs each node that went down or came back, once per change. Not in the first deadline after
     * opening: recovered nodes have not had the time to heartbeat yet, and are not down for that.
     */
    private synchronized void watchLiveness() {
        long now = clock.getAsLong();
        if (now - openedAt < config.nodeDeadline().toMillis()) {
            return;
        }
        for (NodeStatus node : nodes.livenessChanges()) {
            if (node.up()) {
                log.info("node {} at {} is up again", node.nodeId(), node.endpoint());
                metrics.nodeCameUp();
            } else {
                log.warn("node {} at {} is down: no heartbeat for {} ms (the deadline is {} ms)", node.nodeId(), node.endpoint(),
                        now - node.lastHeartbeat().toEpochMilli(), config.nodeDeadline().toMillis());
                metrics.nodeWentDown();
                // Its copies serve nothing now: the replicas' status says so after this tick's look, not the next periodic one.
                replication.changedEverywhere();
            }
        }
    }

    private synchronized void reapExpiredPuts() {
        nodes.releaseLapsedGrants();
        long now = clock.getAsLong();
        for (PutGrant put : List.copyOf(pending.values())) {
            if (put.deadline().toEpochMilli() < now) {
                log.warn("reclaiming abandoned put {} of {}", put.putId(), put.object().key());
                try {
                    giveUp(put);
                } catch (StoreException e) {
                    log.error("cannot reclaim put {}: {}", put.putId(), e.getMessage());
                }
            }
        }
    }

    /** Runs the reclaim passes now, for tests that move the clock instead of waiting. */
    void reapNow() {
        reap();
    }

    // ---- reads

    @Override
    public synchronized ObjectMeta stat(String key) throws StoreException {
        return sealed(key);
    }

    @Override
    public synchronized Located locate(String key, Duration lease) throws StoreException {
        return locateAll(List.of(key), lease).getFirst();
    }

    @Override
    public synchronized List<Located> locateAll(List<String> keys, Duration lease) throws StoreException {
        requireAtMostMaxLeases(keys.size());
        List<ObjectMeta> objects = new ArrayList<>();
        for (String key : keys) {
            objects.add(sealed(key));
        }
        long millis = leaseMillis(lease);
        long now = clock.getAsLong();
        String holder = Caller.current();
        List<Lease> granted = new ArrayList<>();
        MetadataBatch batch = new MetadataBatch();
        for (ObjectMeta object : objects) {
            Lease one = leases.grant(object.key(), now, millis, holder);
            granted.add(one);
            batch.putLease(new ReadLease(object.key(), one.id(), one.expiresAt(), holder));
        }
        try {
            metadata.apply(batch);
        } catch (StoreException e) {
            for (int i = 0; i < objects.size(); i++) {
                leases.release(objects.get(i).key(), granted.get(i).id(), holder);
            }
            throw e;
        }
        List<Located> located = new ArrayList<>();
        for (int i = 0; i < objects.size(); i++) {
            ObjectMeta object = objects.get(i);
            lastRead.put(object.key(), now);
            unrecordedReads.add(object.key());
            located.add(new Located(object, nodes.holders(object), granted.get(i)));
        }
        return located;
    }

    /** Ends every lease the caller may end, then refuses the first it may not, as {@link #releaseLease} would. */
    @Override
    public synchronized void releaseLeases(List<HeldLease> held) throws StoreException {
        requireAtMostMaxLeases(held.size());
        StoreException refused = null;
        for (HeldLease lease : held) {
            try {
                releaseLease(lease.key(), lease.leaseId());
            } catch (StoreException e) {
                refused = refused == null ? e : refused;
            }
        }
        if (refused != null) {
            throw refused;
        }
    }

    @Override
    public synchronized List<Optional<Lease>> renewLeases(List<HeldLease> held, Duration lease) throws StoreException {
        requireAtMostMaxLeases(held.size());
        long millis = leaseMillis(lease);
        long now = clock.getAsLong();
        String caller = Caller.current();
        List<Optional<Lease>> renewed = new ArrayList<>();
        MetadataBatch batch = new MetadataBatch();
        for (HeldLease one : held) {
            try {
                renewed.add(Optional.of(extend(one.key(), one.leaseId(), now, millis, caller, batch)));
            } catch (StoreException e) {
                if (e.code() != NOT_FOUND) {
                    throw e;
                }
                renewed.add(Optional.empty());
            }
        }
        if (!batch.isEmpty()) {
            metadata.apply(batch);
        }
        for (int i = 0; i < held.size(); i++) {
            String key = held.get(i).key();
            renewed.get(i).ifPresent(extended -> leases.extend(key, extended));
        }
        return renewed;
    }

    private static void requireAtMostMaxLeases(int leases) throws StoreException {
        if (leases > MAX_LEASES_PER_CALL) {
            throw new StoreException(INVALID_ARGUMENT, "one call takes or ends at most " + MAX_LEASES_PER_CALL + " read leases, not "
                    + leases);
        }
    }

    @Override
    public synchronized Lease renewLease(String key, long leaseId, Duration lease) throws StoreException {
        MetadataBatch batch = new MetadataBatch();
        Lease renewed = extend(key, leaseId, clock.getAsLong(), leaseMillis(lease), Caller.current(), batch);
        metadata.apply(batch);
        leases.extend(key, renewed);
        return renewed;
    }

    /**
     * Checks {@code caller}'s lease on a sealed object and adds its new expiry to {@code batch}. The lease table is
     * extended only once the caller wrote the batch: a renewal refused or not recorded leaves the lease as its record says.
     */
    private Lease extend(String key, long leaseId, long now, long millis, String caller, MetadataBatch batch) throws StoreException {
        sealed(key);
        Lease extended = leases.renewal(key, leaseId, now, millis, caller);
        batch.putLease(new ReadLease(key, leaseId, extended.expiresAt(), caller));
        return extended;
    }

    private long leaseMillis(Duration requested) throws StoreException {
        if (requested.compareTo(MAX_LEASE) > 0) {
            throw new StoreException(INVALID_ARGUMENT, "a read lease of " + requested.toSeconds() + " s is longer than the "
                    + MAX_LEASE.toSeconds() + " s a master grants; ask for less and renew it");
        }
        return requested.isZero() || requested.isNegative() ? config.leaseDuration().toMillis() : requested.toMillis();
    }

    @Override
    public synchronized void releaseLease(String key, long leaseId) throws StoreException {
        if (leases.release(key, leaseId, Caller.current())) {
            staleLeases.add(leaseId);
        }
    }

    // ---- removal, listing

    @Override
    public synchronized void remove(String key, boolean force) throws StoreException {
        ObjectMeta object = sealed(key);
        long now = clock.getAsLong();
        int holders = leases.holders(object.key(), now);
        if (!force && holders > 0) {
            throw new StoreException(FAILED_PRECONDITION, "object " + object.key() + " is leased by " + holders + " reader(s) until "
                    + Instant.ofEpochMilli(leases.latestExpiry(object.key()).orElse(now)) + "; force to remove it anyway");
        }
        removeObject(object);
    }

    private void removeObject(ObjectMeta object) throws StoreException {
        MetadataBatch batch = new MetadataBatch();
        List<RetiredRange> retiring = retiring(object, batch);
        metadata.applyInParts(batch.deleteObject(object.key()).deleteReadTime(object.key()));
        replication.unmarkLeft(Set.of(object.key()));
        forget(object, retiring);
    }

    /**
     * The ranges of {@code object}, removed with force while readers hold it, that stay taken until their leases end, as a
     * dropped copy's do. Such a reader learns of the removal when it next renews, and reads on until then: a put given the
     * room meanwhile would land under its reads. The leases move with the ranges to a key no object can have
     * ({@link LeaseTable#removedKey}): under the object's own, a put of the same key would find them, count as read, and renew
     * them, so those readers would read the removed version on unawares. Their records go in {@code batch}, before the
     * object's removal, which a batch applied in parts must not carry out without them. None when no lease on it lives.
     */
    private List<RetiredRange> retiring(ObjectMeta object, MetadataBatch batch) {
        if (!leases.isLeased(object.key(), clock.getAsLong())) {
            return List.of();
        }
        String removed = LeaseTable.removedKey(object.key(), object.createdAt());
        List<RetiredRange> ranges = replication.retiring(object, removed, leases.lastId());
        ranges.forEach(batch::putRetired);
        leases.on(object.key()).forEach(lease -> batch.putLease(new ReadLease(removed, lease.leaseId(), lease.expiresAt(),
                lease.holder())));
        return ranges;
    }

    /**
     * Drops what memory holds of a removed object: its space, leases, read time and copies. The ranges in {@code retiring}
     * are held instead of freed, under the leases that hold them, which move to the ranges' key until they end or their
     * readers release them: renewing one finds no lease on the object's key.
     */
    private void forget(ObjectMeta object, List<RetiredRange> retiring) {
        Set<ReplicaRef> kept = new HashSet<>(replication.removed(object.key()));
        if (retiring.isEmpty()) {
            staleLeases.addAll(leases.forget(object.key()));
        } else {
            leases.move(object.key(), LeaseTable.removedKey(object.key(), object.createdAt()));
            replication.retire(retiring);
            retiring.forEach(range -> kept.add(range.replica()));
        }
        nodes.release(object, kept);
        lastRead.remove(object.key());
        unrecordedReads.remove(object.key());
        objectCount--;
    }

    @Override
    public synchronized int removeAll(List<String> keys, boolean force, String writer, String lock) throws StoreException {
        requireLockHeld("removal of " + keys.size() + " objects", lock, writer);
        List<ObjectMeta> found = new ArrayList<>();
        // Each object once, however often the caller names it: forgetting one twice would free its ranges twice.
        for (String key : new LinkedHashSet<>(keys)) {
            metadata.object(ObjectKeys.validate(key)).ifPresent(found::add);
        }
        long now = clock.getAsLong();
        for (ObjectMeta object : force ? List.<ObjectMeta>of() : found) {
            int holders = leases.holders(object.key(), now);
            if (holders > 0) {
                throw new StoreException(FAILED_PRECONDITION, "object " + object.key() + " is leased by " + holders
                        + " reader(s) until " + Instant.ofEpochMilli(leases.latestExpiry(object.key()).orElse(now))
                        + "; nothing was removed; force to remove anyway");
            }
        }
        MetadataBatch batch = new MetadataBatch();
        Map<ObjectMeta, List<RetiredRange>> retiring = new LinkedHashMap<>();
        for (ObjectMeta object : found) {
            retiring.put(object, retiring(object, batch));
            batch.deleteObject(object.key()).deleteReadTime(object.key());
        }
        metadata.applyInParts(batch);
        replication.unmarkLeft(Set.copyOf(found.stream().map(ObjectMeta::key).toList()));
        retiring.forEach(this::forget);
        return found.size();
    }

    @Override
    public synchronized ListPage list(String prefix, String startAfter, int limit) throws StoreException {
        int pageSize = limit <= 0 ? DEFAULT_LIST_LIMIT : Math.min(limit, MAX_LIST_LIMIT);
        List<ObjectMeta> found = metadata.objects(prefix, startAfter, pageSize + 1);
        if (found.size() <= pageSize) {
            return new ListPage(found, Optional.empty());
        }
        List<ObjectMeta> page = found.subList(0, pageSize);
        return new ListPage(page, Optional.of(page.getLast().key()));
    }

    // ---- locks

    @Override
    public synchronized LockState tryLock(String name, String owner, Duration ttl) throws StoreException {
        requireLockArguments(name, owner, ttl);
        Optional<LockState> current = metadata.lock(name);
        long now = clock.getAsLong();
        // The owner is the caller's to name, and a refusal shows it: only the identity that took the lock may take it again.
        if (current.isPresent() && current.get().expiresAt().toEpochMilli() >= now
                && !(current.get().owner().equals(owner) && heldByCaller(current.get()))) {
            return new LockState(false, current.get().owner(), current.get().expiresAt());
        }
        return grant(name, owner, ttl, now);
    }

    @Override
    public synchronized LockState renewLock(String name, String owner, Duration ttl) throws StoreException {
        requireLockArguments(name, owner, ttl);
        Optional<LockState> current = metadata.lock(name);
        if (current.isEmpty() || !current.get().owner().equals(owner)) {
            throw new StoreException(FAILED_PRECONDITION, "lock " + name + " is not held by " + owner
                    + current.map(c -> "; it is held by " + c.owner()).orElse(""));
        }
        requireHeldByCaller(name, current.get());
        return grant(name, owner, ttl, clock.getAsLong());
    }

    @Override
    public synchronized void releaseLock(String name, String owner) throws StoreException {
        Optional<LockState> current = metadata.lock(name);
        if (current.isPresent() && current.get().owner().equals(owner)) {
            requireHeldByCaller(name, current.get());
            metadata.apply(new MetadataBatch().deleteLock(name));
        }
    }

    /**
     * Refuses a put or a removal made under a lock its writer no longer holds: paused past the lock's
     * expiry (a stopped process, a frozen VM) while another took it, the writer would otherwise write
     * over, or remove, the next holder's work when it wakes. Checked under the monitor: for a put at
     * its start and at its seal. {@code what} names the operation in the refusal.
     */
    private void requireLockHeld(String what, String lock, String writer) throws StoreException {
        if (lock.isEmpty()) {
            return;
        }
        Optional<LockState> held = metadata.lock(lock).filter(l -> l.expiresAt().toEpochMilli() >= clock.getAsLong());
        if (held.isEmpty() || !held.get().owner().equals(writer) || !heldByCaller(held.get())) {
            throw new StoreException(FAILED_PRECONDITION, what + " is made under lock " + lock + " by " + writer
                    + ", who no longer holds it (" + held.map(l -> "held by " + l.owner() + " now").orElse("expired") + ")");
        }
    }

    private static boolean heldByCaller(LockState lock) {
        return Holders.allows(lock.holder(), Caller.current());
    }

    private static void requireHeldByCaller(String name, LockState lock) throws StoreException {
        if (!heldByCaller(lock)) {
            throw new StoreException(PERMISSION_DENIED, "lock " + name + " was taken by " + lock.holder() + "; only it may renew or"
                    + " release it, not " + Holders.named(Caller.current()));
        }
    }

    private LockState grant(String name, String owner, Duration ttl, long now) throws StoreException {
        LockState held = new LockState(true, owner, Instant.ofEpochMilli(now + ttl.toMillis()), Caller.current());
        metadata.apply(new MetadataBatch().putLock(name, held));
        return held;
    }

    private static void requireLockArguments(String name, String owner, Duration ttl) throws StoreException {
        if (name.isEmpty() || owner.isEmpty() || ttl.toMillis() <= 0) {
            throw new StoreException(INVALID_ARGUMENT, "a lock needs a name, an owner and a ttl > 0: name=" + name + " owner="
                    + owner + " ttlMs=" + ttl.toMillis());
        }
        if (name.length() > MAX_LOCK_TEXT || owner.length() > MAX_LOCK_TEXT) {
            throw new StoreException(INVALID_ARGUMENT, "a lock's name and owner take at most " + MAX_LOCK_TEXT + " characters:"
                    + " nameLength=" + name.length() + " ownerLength=" + owner.length());
        }
        // Bounded, an expiry never wraps past Long.MAX_VALUE into the past, where the lock would go to the next writer at once.
        if (ttl.compareTo(MAX_LOCK_TTL) > 0) {
            throw new StoreException(INVALID_ARGUMENT, "lock " + name + ": a ttl of " + ttl.toMillis() + " ms is more than the "
                    + MAX_LOCK_TTL.toSeconds() + " s a master grants; ask for less and renew it");
        }
    }

    /**
     * Deletes the records of locks expired for {@link #EXPIRED_LOCKS_KEPT}, a batch at a time under the monitor (a lock
     * taken again meanwhile is not expired any more), once a minute.
     */
    private void reapExpiredLocks() {
        synchronized (this) {
            long now = clock.getAsLong();
            if (now < nextLockReap) {
                return;
            }
            nextLockReap = now + LOCK_REAP_PERIOD_MS;
        }
        try {
            while (true) {
                synchronized (this) {
                    long before = clock.getAsLong() - EXPIRED_LOCKS_KEPT.toMillis();
                    MetadataBatch batch = new MetadataBatch();
                    int expired = 0;
                    for (Map.Entry<String, LockState> lock : metadata.locks().entrySet()) {
                        if (lock.getValue().expiresAt().toEpochMilli() < before && expired < RECORDS_PER_BACKGROUND_BATCH) {
                            batch.deleteLock(lock.getKey());
                            expired++;
                        }
                    }
                    if (expired == 0) {
                        return;
                    }
                    metadata.apply(batch);
                }
            }
        } catch (StoreException e) {
            log.warn("cannot delete the records of expired locks (will retry): {}", e.getMessage());
        }
    }

    // ---- status

    @Override
    public synchronized StoreStatus status() {
        Set<String> upIds = new HashSet<>();
        nodes.placeable().forEach(node -> upIds.add(node.nodeId()));
        return new StoreStatus(nodes.statuses(), objectCount, pending.size(), replication.status(), held(upIds));
    }

    @Override
    public synchronized int activeReadLeases() {
        return leases.active(clock.getAsLong());
    }

    @Override
    public synchronized Room room() throws StoreException {
        long capacity = 0;
        long used = 0;
        List<NodeInfo> up = nodes.placeable();
        Set<String> upIds = new HashSet<>();
        for (NodeInfo node : up) {
            capacity += nodes.space(node.nodeId()).capacity();
            used += nodes.space(node.nodeId()).used();
            upIds.add(node.nodeId());
        }
        long evictable = 0;
        for (ObjectMeta object : evictable()) {
            evictable += nodes.freedFor(object, Caller.current(), upIds::contains);
        }
        return new Room(capacity, used, evictable, held(upIds), up.size());
    }

    /**
     * Room on the nodes {@code upIds} held for write grants, counted in used: the caller's own, which a put of its own may
     * take at once (see putStart), and other writers'.
     */
    private Room.Held held(Set<String> upIds) {
        long heldForCaller = 0;
        long heldForOthers = 0;
        long heldUntil = 0;
        String caller = Caller.current();
        for (GrantedRanges.Held range : nodes.held()) {
            if (!upIds.contains(range.replica().nodeId())) {
                continue;
            }
            if (range.onlyFor(caller)) {
                heldForCaller += range.length();
            } else {
                heldForOthers += range.length();
                heldUntil = Math.max(heldUntil, range.until());
            }
        }
        return new Room.Held(heldForCaller, heldForOthers,
                heldUntil == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(heldUntil)));
    }

    private ObjectMeta sealed(String key) throws StoreException {
        ObjectKeys.validate(key);
        return metadata.object(key).orElseThrow(() -> new StoreException(NOT_FOUND, "no object " + key));
    }

    // ---- repairs by clients

    @Override
    public synchronized RepairGrant repairStart(String key, Instant version, int slice, String replacing) throws StoreException {
        ObjectMeta object = sealedVersion(key, version);
        if (slice < 0 || slice >= object.slices().size()) {
            throw new StoreException(INVALID_ARGUMENT, "repair of " + key + ": slice=" + slice + " is outside 0.."
                    + (object.slices().size() - 1));
        }
        CopyTable.Copy copy = replication.startClientRepair(object, slice, replacing);
        NodeInfo node = nodes.get(copy.target().nodeId()).orElseThrow();
        RepairGrant grant = new RepairGrant(copy.id(), key, slice, copy.target(), node, replacing,
                Instant.ofEpochMilli(clock.getAsLong() + config.putTimeout().toMillis()));
        if (!Caller.current().isEmpty()) {
            nodes.granted(copy.target(), copy.length(), grant.deadline(), Caller.current());
        }
        log.info("repair {}: slice {} of {} {} on node {} at offset {}", grant.repairId(), slice, key,
                grant.inPlace() ? "rewritten in place" : replacing.isEmpty() ? "gets a copy" : "moves from node " + replacing,
                copy.target().nodeId(), copy.target().offset());
        return grant;
    }

    @Override
    public synchronized ObjectMeta repairEnd(String repairId) throws StoreException {
        return replication.endClientRepair(repairId);
    }

    @Override
    public synchronized void repairAbort(String repairId) {
        replication.abortClientRepair(repairId);
    }

    // ---- replica counts, local copies, drains

    @Override
    public synchronized int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException {
        if (replicas < 1) {
            throw new StoreException(INVALID_ARGUMENT, "an object needs at least 1 replica, found " + replicas);
        }
        int up = nodes.placeable().size();
        if (replicas > up) {
            throw new StoreException(UNAVAILABLE, replicas + " replicas need " + replicas + " nodes that are up and not being drained, "
                    + up + " are");
        }
        MetadataBatch batch = new MetadataBatch();
        List<ObjectMeta> changed = new ArrayList<>();
        for (String key : keys) {
            Optional<ObjectMeta> object = metadata.object(ObjectKeys.validate(key));
            if (object.isPresent() && (object.get().replicas() != replicas || object.get().autoReplicas() != auto)) {
                ObjectMeta updated = object.get().withReplicas(replicas, auto);
                batch.putObject(updated);
                changed.add(updated);
            }
        }
        metadata.applyInParts(batch);
        for (ObjectMeta object : changed) {
            replication.track(object);
            replication.changed(object.key());
        }
        log.info("{} objects now keep {} replicas{}", changed.size(), replicas, auto ? " or more while readers crowd them (auto)" : "");
        return changed.size();
    }

    @Override
    public synchronized int keepLocalCopies(List<String> keys, String nodeId) throws StoreException {
        nodes.get(nodeId).orElseThrow(() -> new StoreException(NOT_FOUND, "no node " + nodeId));
        MetadataBatch batch = new MetadataBatch();
        List<String> changed = new ArrayList<>();
        for (String key : keys) {
            Optional<ObjectMeta> object = metadata.object(ObjectKeys.validate(key));
            if (object.isPresent() && !object.get().localCopies().contains(nodeId)) {
                List<String> local = new ArrayList<>(object.get().localCopies());
                local.add(nodeId);
                batch.putObject(object.get().withLocalCopies(local));
                changed.add(key);
            }
        }
        metadata.applyInParts(batch);
        changed.forEach(replication::changed);
        return changed.size();
    }

    @Override
    public synchronized NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException {
        NodeInfo node = nodes.get(nodeId).orElseThrow(() -> new StoreException(NOT_FOUND, "no node " + nodeId
                + "; the master knows " + nodes.statuses().stream().map(NodeStatus::nodeId).toList()));
        if (!cancel && !nodes.isDraining(nodeId)) {
            long elsewhere = nodes.placeable().stream().filter(n -> !n.nodeId().equals(nodeId)).count();
            if (elsewhere == 0) {
                throw new StoreException(UNAVAILABLE, "node " + nodeId + " is the only node up: there is nowhere to move its copies");
            }
            log.info("draining node {}: its copies move to other nodes, and nothing new goes on it", nodeId);
        }
        if (nodes.isDraining(nodeId) == cancel) {
            // Recorded first: a drain the master answered for goes on after a restart or a change of leader.
            metadata.apply(new MetadataBatch().putNode(node, !cancel));
            nodes.drain(nodeId, !cancel);
            replication.changedEverywhere();
        }
        return new NodeDrain(node.nodeId(), nodes.isDraining(nodeId), replication.replicasOn(nodeId) + pendingReplicasOn(nodeId));
    }

    /** Replicas that puts placed before the drain began will seal on the node, to be moved off it in turn. */
    private int pendingReplicasOn(String nodeId) {
        return pending.values().stream().mapToInt(put -> put.object().replicasOn(nodeId)).sum();
    }

    /** The sealed object of {@code key}, refused when it is not the version a caller checked. */
    private ObjectMeta sealedVersion(String key, Instant version) throws StoreException {
        ObjectMeta object = sealed(key);
        if (!object.createdAt().equals(version)) {
            throw new StoreException(FAILED_PRECONDITION, "object " + key + " was sealed at " + object.createdAt()
                    + ", not at " + version + " as when it was checked: it was replaced; check it again");
        }
        return object;
    }

    // ---- forgetting nodes

    @Override
    public synchronized NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException {
        NodeInfo node = nodes.get(nodeId).orElseThrow(() -> new StoreException(NOT_FOUND, "no node " + nodeId
                + "; the master knows " + nodes.statuses().stream().map(NodeStatus::nodeId).toList()));
        if (nodes.isUp(node) && !force) {
            throw new StoreException(FAILED_PRECONDITION, "node " + nodeId + " is up (last heartbeat "
                    + nodes.status(node).lastHeartbeat() + "); stop it first, or force to forget it anyway (if it keeps running it"
                    + " registers again, empty)");
        }
        List<ObjectMeta> objects = metadata.objects("", "", Integer.MAX_VALUE);
        requireOtherCopies(nodeId, objects, force);
        MetadataBatch batch = new MetadataBatch();
        int changed = 0;
        int dropped = 0;
        for (ObjectMeta object : objects) {
            List<SliceMeta> slices = new ArrayList<>();
            int before = dropped;
            for (SliceMeta slice : object.slices()) {
                List<ReplicaRef> kept = slice.replicas().stream().filter(r -> !r.nodeId().equals(nodeId)).toList();
                dropped += slice.replicas().size() - kept.size();
                slices.add(slice.withReplicas(kept));
            }
            if (dropped > before) {
                batch.putObject(object.withSlices(slices));
                changed++;
            }
        }
        // A put that placed a replica on the node can never be sealed whole: end it now rather than at its deadline.
        List<PutGrant> doomed = pending.values().stream().filter(p -> p.object().slices().stream()
                .anyMatch(s -> s.nodeIds().contains(nodeId))).toList();
        doomed.forEach(p -> batch.deletePending(p.putId()));
        metadata.retiredRanges().stream().filter(range -> range.replica().nodeId().equals(nodeId))
                .forEach(range -> batch.deleteRetired(range.replica()));
        metadata.badCopies().stream().filter(copy -> copy.replica().nodeId().equals(nodeId))
                .forEach(copy -> batch.deleteBadCopy(copy.key(), copy.slice(), nodeId));
        // The node's record goes last: a forget cut short between parts still names the node, and running it again finishes.
        batch.deleteNode(nodeId);
        metadata.applyInParts(batch);
        for (PutGrant put : doomed) {
            pending.remove(put.putId());
            holdFromEveryPut(put);
            nodes.release(put.object());
        }
        replication.forgotten(nodeId);
        nodes.forget(nodeId);
        log.warn("node {} forgotten: {} replicas dropped from {} objects, {} puts in progress aborted", nodeId, dropped, changed,
                doomed.size());
        return new NodeForgotten(nodeId, changed, dropped, doomed.size());
    }

    /**
     * Refuses to forget a node while some slice would keep no copy that can serve or come back, naming the first such slice.
     * A copy elsewhere counts unless its node's pool is known lost or the copy is known bad (the scrubbers' reports, kept in the
     * metadata across restarts). One on a node that is down counts: that node may come back with its pool,
     * as the forgotten one might have, so forgetting the one never leaves the slice without a copy that can exist, and two
     * nodes down at once are forgotten one after the other (the last copy never). Forced, only a slice left with no copy at
     * all is refused: the admin may overrule the master's view of the other copies, never drop a slice's last record.
     */
    private void requireOtherCopies(String nodeId, List<ObjectMeta> objects, boolean force) throws StoreException {
        List<String> onlyCopies = new ArrayList<>();
        List<String> lastCounting = new ArrayList<>();
        for (ObjectMeta object : objects) {
            for (int i = 0; i < object.slices().size(); i++) {
                List<String> holders = object.slice(i).nodeIds();
                if (!holders.contains(nodeId)) {
                    continue;
                }
                List<String> others = holders.stream().filter(id -> !id.equals(nodeId)).toList();
                String slice = "slice " + i + " of " + object.key();
                if (others.isEmpty()) {
                    onlyCopies.add(slice);
                } else if (!force) {
                    int index = i;
                    List<String> why = others.stream().flatMap(id -> discounted(object.key(), index, id).stream()).toList();
                    if (why.size() == others.size()) {
                        lastCounting.add(slice + " (" + String.join("; ", why) + ")");
                    }
                }
            }
        }
        if (!onlyCopies.isEmpty()) {
            throw new StoreException(FAILED_PRECONDITION, "node " + nodeId + " holds the only copy of " + onlyCopies.getFirst()
                    + more(onlyCopies) + "; remove what it alone holds, or bring the node back with its pool and repair, before"
                    + " forgetting it");
        }
        if (!lastCounting.isEmpty()) {
            throw new StoreException(FAILED_PRECONDITION, "node " + nodeId + " holds the last copy that counts of "
                    + lastCounting.getFirst() + more(lastCounting) + "; bring the node back with its pool and repair, or remove those"
                    + " objects, before forgetting it, or force to forget it anyway");
        }
    }

    /** Why the copy of a slice on {@code holder} does not count for {@link #requireOtherCopies}; empty when it does. */
    private Optional<String> discounted(String key, int slice, String holder) {
        if (nodes.isPoolLost(holder)) {
            return Optional.of("node " + holder + "'s pool is lost");
        }
        return replication.isBad(key, slice, holder) ? Optional.of("the copy on node " + holder + " was found bad") : Optional.empty();
    }

    private static String more(List<String> slices) {
        return slices.size() > 1 ? " (and of " + (slices.size() - 1) + " more slices)" : "";
    }

    @Override
    public void close() {
        // The reaper must be done before the metadata closes: RocksDB used after close crashes the process.
        // Waited for outside the monitor, which the reaper takes between its steps.
        reaper.shutdownNow();
        try {
            if (!reaper.awaitTermination(30, TimeUnit.SECONDS)) {
                log.warn("the master's background work did not stop within 30 s of closing");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            // Leases already released must not look held to the next master to open this metadata (the embedded
            // store opens it once per command): delete their records now rather than at the next reaper pass. The
            // read times since the last record go with them, so a clean restart keeps the order of every read.
            reapLeaseRecords();
            recordReadTimes(true);
            metadata.close();
        }
    }
}
