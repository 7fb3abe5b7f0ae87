package io.weightstore.store.master;

import static io.weightstore.store.api.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.api.StoreException.Code.NOT_FOUND;

import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.CopyInFlight;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.CopyProgress;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.ReplicationStatus;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.ScrubTask;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every slice at its replica count, by nodes copying from one another: it looks over the
 * objects, drops copies nobody needs, and hands each node the copies to make (in its heartbeat
 * answers) with the replicas it should scrub next. A copy enters an object's metadata only once its
 * node reports it written and checked; a copy it replaces leaves it then, and its range is freed
 * once no reader can still hold it ({@link RetiredRanges}). Not thread-safe: every method runs
 * under the master's monitor.
 *
 * <p>The look over the objects is a full pass every {@link #FULL_PASS_MILLIS}, or sooner when
 * something changed for every object (a node lost or back, a drain), and a look at just the objects
 * something happened to (a copy ended, a bad copy found, a count set, readers of auto objects).
 */
final class Replication {
    private static final Logger log = LoggerFactory.getLogger(Replication.class);
    static final long FULL_PASS_MILLIS = 5_000;
    private static final int PAGE = 128;
    /**
     * Records of copies dropped (a retired range, and one more for a copy known bad), or retired ranges freed, in one
     * change of the metadata: an etcd transaction takes at most {@code EtcdMetadataStore.MAX_BATCH} (128).
     */
    static final int MAX_DROPS_PER_CHANGE = 100;

    /**
     * A copy a scrubber or a failed copy found bad, until it is rewritten or dropped. Each is recorded with the
     * metadata ({@link MetadataBatch#putBadCopy}): a master that restarts, or takes over, counting it good would keep
     * it over the good copies when the slice's count is lowered.
     */
    private record BadReplica(String key, int slice, String nodeId) {}

    /** One look over objects: where it is, what it found, and whether it is the full pass. */
    static final class Pass {
        private final boolean full;
        private final List<String> keys;
        private String after = "";
        private int index;
        private int belowTarget;
        private int waiting;
        private int unreadable;
        private final Map<String, Integer> replicasByNode = new HashMap<>();
        /**
         * Bytes this pass took off each node by dropping copies. Their ranges are freed only later,
         * once no reader can hold them, so without this every node looks as full as before, and a count
         * lowered on many slices would trim the same nodes each time and keep the rest on a few.
         */
        private final Map<String, Long> droppedBytes = new HashMap<>();

        private Pass(boolean full, List<String> keys) {
            this.full = full;
            this.keys = keys;
        }
    }

    private final MetadataStore metadata;
    private final NodeRegistry nodes;
    private final LeaseTable leases;
    private final MasterConfig config;
    private final LongSupplier clock;
    private final Placement placement;
    private final CopyTable copies = new CopyTable();
    private final RetiredRanges retired = new RetiredRanges();
    private final AutoReplicas auto;
    private final ScrubCursors scrubs;
    private final Set<BadReplica> bad = new HashSet<>();
    private final Set<String> autoKeys = new HashSet<>();
    private final Set<String> dirtyKeys = new LinkedHashSet<>();
    private boolean dirtyAll = true;
    private long lastFullPass;
    private Set<String> lastLost = Set.of();
    private int belowTarget;
    private int waiting;
    private int unreadable;
    private Map<String, Integer> replicasByNode = Map.of();
    private boolean fullPassFinished;
    private final long openedAt;

    Replication(MetadataStore metadata, NodeRegistry nodes, LeaseTable leases, MasterConfig config, LongSupplier clock,
            Placement placement) {
        this.metadata = metadata;
        this.nodes = nodes;
        this.leases = leases;
        this.config = config;
        this.clock = clock;
        this.placement = placement;
        this.auto = new AutoReplicas(config.replication().readersPerReplica(), config.replication().coolDown().toMillis());
        this.scrubs = new ScrubCursors(metadata);
        this.openedAt = clock.getAsLong();
    }

    private ReplicationConfig settings() {
        return config.replication();
    }

    /** An object the master knows of, at start-up or when it is sealed. */
    void track(ObjectMeta object) {
        if (object.autoReplicas()) {
            autoKeys.add(object.key());
        } else {
            autoKeys.remove(object.key());
        }
    }

    // ---- a node's heartbeat

    /** Takes a node's report, and answers with the copies it should make and the replicas it should scrub. */
    NodeOrders orders(NodeReport report) throws StoreException {
        String nodeId = report.nodeId();
        long now = clock.getAsLong();
        Set<String> running = new HashSet<>();
        for (CopyProgress progress : report.copies()) {
            running.add(progress.taskId());
            copies.progress(progress.taskId(), progress.bytesDone(), now + settings().stallTimeout().toMillis());
        }
        for (CopyTable.Copy stopped : copies.stoppedOn(nodeId, running)) {
            releaseTarget(stopped);
        }
        for (ScrubFinding finding : report.badCopies()) {
            markBad(finding.key(), finding.version(), finding.slice(), nodeId, finding.offset(), "the scrubber of node " + nodeId
                    + " found " + finding.problem());
        }
        List<CopyTask> tasks = new ArrayList<>();
        for (CopyTable.Copy copy : copies.ordersFor(nodeId)) {
            task(copy).ifPresentOrElse(tasks::add, () -> giveUp(copy, "its object, slice or source changed"));
        }
        List<ScrubTask> scrub = report.scrubRoom() <= 0 ? List.of()
                : scrubs.next(nodeId, report.scrubRoom(), (key, slice) -> copies.pendingFor(key, slice).isPresent());
        return new NodeOrders(true, tasks, scrub, settings().copyBytesPerSecond());
    }

    /** The copy as the node needs it, or empty when what it reads from is gone. */
    private Optional<CopyTask> task(CopyTable.Copy copy) throws StoreException {
        Optional<ObjectMeta> object = metadata.object(copy.key()).filter(o -> o.createdAt().equals(copy.version()));
        Optional<NodeInfo> source = nodes.get(copy.source());
        if (object.isEmpty() || source.isEmpty()) {
            return Optional.empty();
        }
        SliceMeta slice = object.get().slice(copy.slice());
        return slice.replicas().stream().filter(r -> r.nodeId().equals(copy.source())).findFirst()
                .map(from -> new CopyTask(copy.id(), copy.key(), copy.slice(), slice.length(), object.get().checksumBlockSize(),
                        slice.crcs(), source.get(), from.offset(), copy.target().offset(), Ticket.none()));
    }

    /** A node reports how a copy ended: commit it, or give it up. */
    void finish(String nodeId, String taskId, CopyOutcome outcome) throws StoreException {
        CopyTable.Copy copy = copies.get(taskId).filter(c -> c.byNode() && c.target().nodeId().equals(nodeId))
                .orElseThrow(() -> new StoreException(NOT_FOUND, "copy " + taskId + " is not one node " + nodeId
                        + " is making: unknown, given up, or already ended"));
        copies.remove(taskId);
        dirtyKeys.add(copy.key());
        switch (outcome) {
            case CopyOutcome.Done done -> {
                try {
                    commit(copy);
                } catch (StoreException e) {
                    releaseTarget(copy);
                    throw e;
                }
            }
            case CopyOutcome.Failed failed -> {
                log.warn("copy {} of slice {} of {} from node {} to node {} failed: {}", taskId, copy.slice(), copy.key(), copy.source(),
                        nodeId, failed.why());
                releaseTarget(copy);
                if (failed.sourceBad()) {
                    Optional<ObjectMeta> object = metadata.object(copy.key()).filter(o -> o.createdAt().equals(copy.version()));
                    Optional<ReplicaRef> source = object.flatMap(o -> o.slice(copy.slice()).replicas().stream()
                            .filter(r -> r.nodeId().equals(copy.source())).findFirst());
                    if (source.isPresent()) {
                        markBad(copy.key(), copy.version(), copy.slice(), copy.source(), source.get().offset(),
                                "node " + nodeId + " found, copying from it: " + failed.why());
                    }
                }
            }
        }
    }

    private void markBad(String key, Instant version, int slice, String nodeId, long offset, String why)
            throws StoreException {
        Optional<ObjectMeta> object = metadata.object(key).filter(o -> o.createdAt().equals(version) && slice < o.slices().size());
        boolean current = object.isPresent() && object.get().slice(slice).replicas().contains(new ReplicaRef(nodeId, offset))
                && copies.pendingFor(key, slice).isEmpty();
        BadReplica found = new BadReplica(key, slice, nodeId);
        if (current && !bad.contains(found)) {
            metadata.apply(new MetadataBatch().putBadCopy(new BadCopy(key, version, slice, new ReplicaRef(nodeId, offset))));
            bad.add(found);
            log.warn("slice {} of {} on node {} is bad: {}", slice, key, nodeId, why);
            dirtyKeys.add(key);
        }
    }

    /** Holds a copy recorded as bad by an earlier master; the caller checked that it is still a replica of its object. */
    void recoverBad(BadCopy copy) {
        bad.add(new BadReplica(copy.key(), copy.slice(), copy.replica().nodeId()));
    }

    /**
     * Those of the copies of a slice on {@code nodeIds} that are known bad, their records' deletion added to
     * {@code batch}: once it is applied, the caller takes them out of {@link #bad}.
     */
    private List<BadReplica> unmarking(MetadataBatch batch, String key, int slice, List<String> nodeIds) {
        List<BadReplica> known = nodeIds.stream().map(id -> new BadReplica(key, slice, id)).filter(bad::contains).toList();
        known.forEach(b -> batch.deleteBadCopy(b.key(), b.slice(), b.nodeId()));
        return known;
    }

    /**
     * Deletes the records of the copies known bad of objects that left (removed, evicted or replaced). Not in the change
     * that took them away: an object can have more bad copies than an etcd transaction takes records. A record left here
     * marks nothing, since a master that recovers drops those of objects gone or replaced.
     */
    void unmarkLeft(Set<String> keys) {
        MetadataBatch batch = new MetadataBatch();
        bad.stream().filter(b -> keys.contains(b.key())).forEach(b -> batch.deleteBadCopy(b.key(), b.slice(), b.nodeId()));
        if (batch.isEmpty()) {
            return;
        }
        try {
            metadata.applyInParts(batch);
        } catch (StoreException e) {
            log.warn("cannot delete the records of {} bad copies of objects that left; the next master to recover drops them: {}",
                    batch.changes().size(), e.getMessage());
        }
    }

    // ---- copies made by clients (verify --repair)

    /** Room for a client's repair of a slice; see {@link io.weightstore.store.api.MasterApi#repairStart}. */
    CopyTable.Copy startClientRepair(ObjectMeta object, int slice, String replacing) throws StoreException {
        Optional<CopyTable.Copy> busy = copies.pendingFor(object.key(), slice);
        if (busy.isPresent()) {
            throw new StoreException(FAILED_PRECONDITION, "slice " + slice + " of " + object.key() + " is being repaired: "
                    + (busy.get().byNode() ? "node " + busy.get().target().nodeId() + " is copying it" : "by repair " + busy.get().id())
                    + "; try again once it is done");
        }
        SliceMeta meta = object.slice(slice);
        ReplicaRef target;
        if (replacing.isEmpty()) {
            if (meta.replicas().size() >= object.replicas()) {
                throw new StoreException(FAILED_PRECONDITION, "slice " + slice + " of " + object.key() + " already has "
                        + meta.replicas().size() + " replicas, as many as the object asked for");
            }
            target = allocate(object, slice, nodes.placeable(), false).orElseThrow(() -> noRoom(object, slice));
        } else {
            ReplicaRef old = meta.replicas().stream().filter(r -> r.nodeId().equals(replacing)).findFirst()
                    .orElseThrow(() -> new StoreException(NOT_FOUND, "slice " + slice + " of " + object.key() + " has no replica on node "
                            + replacing));
            // A copy on a node that is up had bad bytes: rewrite it where it is. One on a node that is down
            // or unknown cannot be reached: put the new copy on another node.
            boolean reachable = nodes.get(replacing).map(nodes::isUp).orElse(false);
            target = reachable ? old : allocate(object, slice, nodes.placeable(), false).orElseThrow(() -> noRoom(object, slice));
        }
        CopyTable.Copy copy = new CopyTable.Copy(UUID.randomUUID().toString(), object.key(), object.createdAt(), slice, meta.length(),
                target, replacing, "", CopyInFlight.Reason.CLIENT, false);
        copies.add(copy, clock.getAsLong() + config.putTimeout().toMillis());
        return copy;
    }

    private StoreException noRoom(ObjectMeta object, int slice) {
        List<String> holders = object.slice(slice).nodeIds();
        boolean anyNode = nodes.placeable().stream().anyMatch(n -> !holders.contains(n.nodeId()));
        return new StoreException(anyNode ? StoreException.Code.NO_SPACE : StoreException.Code.UNAVAILABLE, "no node that is up and"
                + " holds no copy of slice " + slice + " of " + object.key() + (anyNode ? " has room for its "
                + object.slice(slice).length() + " bytes" : " exists"));
    }

    /** Commits a client's repair whose copy was written and checked. */
    ObjectMeta endClientRepair(String repairId) throws StoreException {
        // Looked up before it is removed: a node's copy named here is not the caller's to end, and must stay in the table.
        CopyTable.Copy copy = copies.get(repairId).filter(c -> !c.byNode()).orElseThrow(() -> new StoreException(NOT_FOUND,
                "repair " + repairId + " is unknown, expired or already ended"));
        copies.remove(repairId);
        try {
            return commit(copy);
        } catch (StoreException e) {
            releaseTarget(copy);
            throw e;
        }
    }

    void abortClientRepair(String repairId) {
        copies.get(repairId).filter(c -> !c.byNode()).ifPresent(copy -> {
            copies.remove(repairId);
            releaseTarget(copy);
        });
    }

    Optional<CopyTable.Copy> pending(String id) {
        return copies.get(id);
    }

    // ---- committing

    /** Puts a checked copy into its object's metadata, in place of the replica it replaces. */
    private ObjectMeta commit(CopyTable.Copy copy) throws StoreException {
        ObjectMeta object = metadata.object(copy.key()).orElseThrow(() -> new StoreException(NOT_FOUND, "no object " + copy.key()
                + ": it was removed while slice " + copy.slice() + " was copied"));
        if (!object.createdAt().equals(copy.version())) {
            throw new StoreException(FAILED_PRECONDITION, "object " + copy.key() + " was sealed at " + object.createdAt()
                    + ", not at " + copy.version() + " as when it was checked: it was replaced; check it again");
        }
        SliceMeta meta = object.slice(copy.slice());
        List<ReplicaRef> replicas = new ArrayList<>(meta.replicas());
        int replaced = replacing(replicas, copy);
        if (copy.inPlace()) {
            MetadataBatch rewritten = new MetadataBatch();
            List<BadReplica> good = unmarking(rewritten, copy.key(), copy.slice(), List.of(copy.target().nodeId()));
            if (!rewritten.isEmpty()) {
                metadata.apply(rewritten);
                good.forEach(bad::remove);
            }
            log.info("copy {} rewrote slice {} of {} in place on node {}", copy.id(), copy.slice(), copy.key(), copy.target().nodeId());
            return object; // the same range holds good bytes again; the metadata already says so
        }
        if (replicas.stream().anyMatch(r -> r.nodeId().equals(copy.target().nodeId()))) {
            throw new StoreException(FAILED_PRECONDITION, "slice " + copy.slice() + " of " + copy.key() + " already has a replica on node "
                    + copy.target().nodeId());
        }
        ReplicaRef old = null;
        if (replaced < 0) {
            replicas.add(copy.target());
        } else {
            old = replicas.set(replaced, copy.target());
        }
        List<SliceMeta> slices = new ArrayList<>(object.slices());
        slices.set(copy.slice(), meta.withReplicas(replicas));
        ObjectMeta repaired = object.withSlices(slices);
        MetadataBatch change = new MetadataBatch().putObject(repaired);
        List<BadReplica> unmarked = unmarking(change, copy.key(), copy.slice(), old == null ? List.of() : List.of(old.nodeId()));
        if (old != null) {
            applyRetiring(change, copy.key(), Map.of(old, meta.length()));
        } else {
            metadata.apply(change);
        }
        unmarked.forEach(bad::remove);
        log.info("copy {} committed ({}): slice {} of {} on nodes {}", copy.id(), copy.reason(), copy.slice(), copy.key(),
                repaired.slice(copy.slice()).nodeIds());
        return repaired;
    }

    /** Where in {@code replicas} the copy goes: the index of the one it replaces, or -1 to add it. */
    private static int replacing(List<ReplicaRef> replicas, CopyTable.Copy copy) throws StoreException {
        if (copy.replaces().isEmpty()) {
            return -1;
        }
        for (int i = 0; i < replicas.size(); i++) {
            if (replicas.get(i).nodeId().equals(copy.replaces())) {
                return i;
            }
        }
        throw new StoreException(FAILED_PRECONDITION, "slice " + copy.slice() + " of " + copy.key()
                + " no longer has a replica on node " + copy.replaces());
    }

    /**
     * Applies {@code change}, which takes the ranges {@code gone} (with their lengths) out of {@code key}'s
     * metadata, and frees them: now if no reader can hold them, else once the last one that can is gone,
     * recording them in the same change so that a master that restarts or takes over keeps them too.
     */
    private void applyRetiring(MetadataBatch change, String key, Map<ReplicaRef, Long> leaving) throws StoreException {
        // A range a given-up rewrite may still write in place is that copy's to free once its node stops, not the readers'.
        Map<ReplicaRef, Long> gone = new LinkedHashMap<>(leaving);
        copies.ownRangesStillWritten(key, leaving::containsKey).forEach(gone::remove);
        long mark = leases.lastId();
        if (!leases.heldSince(key, mark, clock.getAsLong())) {
            metadata.apply(change);
            gone.forEach(nodes::release);
            return;
        }
        List<RetiredRange> ranges = gone.entrySet().stream().map(g -> new RetiredRange(key, mark, g.getKey(), g.getValue())).toList();
        ranges.forEach(change::putRetired);
        metadata.apply(change);
        ranges.forEach(retired::retire);
    }

    /**
     * Holds a range recorded as retired by an earlier master; false when its node is unknown or the range is not free.
     * Lease ids handed out from now on stay above its mark, so no new reader counts as one from before the change.
     */
    boolean recoverRetired(RetiredRange range) {
        if (!nodes.reserve(range.replica(), range.length())) {
            return false;
        }
        leases.idsAbove(range.leaseMark());
        retired.retire(range);
        return true;
    }

    /** Frees what a copy allocated; one in place allocated nothing. */
    private void releaseTarget(CopyTable.Copy copy) {
        if (!copy.inPlace()) {
            nodes.release(copy.target(), copy.length());
        }
    }

    /** Gives a pending copy up; a node's keeps its room until the node says it stopped writing there. */
    private void giveUp(CopyTable.Copy copy, String why) {
        copies.remove(copy.id());
        dirtyKeys.add(copy.key());
        log.warn("giving up copy {} of slice {} of {} to node {}: {}", copy.id(), copy.slice(), copy.key(), copy.target().nodeId(), why);
        if (copy.byNode()) {
            copies.stopping(copy);
        } else {
            releaseTarget(copy);
        }
    }

    // ---- events the master tells

    /** A node (re)registered: whatever it was copying died with its old process, or the node stopped it before registering. */
    void registered(String nodeId) {
        for (CopyTable.Copy copy : copies.involving(nodeId)) {
            if (copy.byNode() && copy.target().nodeId().equals(nodeId)) {
                copies.remove(copy.id());
                releaseTarget(copy);
            }
        }
        copies.stoppedOn(nodeId, Set.of()).forEach(this::releaseTarget);
        dirtyAll = true;
    }

    /**
     * An object left (removed, evicted or replaced): the copies nodes make of it are given up. A
     * client's repair stays until it commits, which is then refused saying why, or expires. Returns
     * the object's ranges that nodes still rewrite in place: those copies now own them, and free them
     * once their nodes stop writing there, so the caller must not free them with the object's others.
     */
    Set<ReplicaRef> removed(String key) {
        Set<ReplicaRef> rewritten = stillWritten(key);
        for (CopyTable.Copy copy : copies.ofKey(key)) {
            if (copy.byNode()) {
                giveUp(copy.ownsTarget(), "its object was removed or replaced");
            }
        }
        bad.removeIf(b -> b.key().equals(key));
        auto.forget(key);
        autoKeys.remove(key);
        return rewritten;
    }

    /** The ranges of {@code key}'s copies that nodes rewrite in place, which {@link #removed} leaves to those copies to free. */
    private Set<ReplicaRef> stillWritten(String key) {
        Set<ReplicaRef> rewritten = new HashSet<>(copies.ownRangesStillWritten(key, range -> true));
        for (CopyTable.Copy copy : copies.ofKey(key)) {
            if (copy.byNode() && copy.inPlace()) {
                rewritten.add(copy.target());
            }
        }
        return rewritten;
    }

    /**
     * The ranges of {@code object}'s copies, as retired under {@code key} and lease mark {@code mark}, for a removal while
     * readers hold it; those that nodes rewrite in place are left out, as {@link #removed} leaves them. Nothing changes
     * until {@link #retire}.
     */
    List<RetiredRange> retiring(ObjectMeta object, String key, long mark) {
        Set<ReplicaRef> rewritten = stillWritten(object.key());
        List<RetiredRange> ranges = new ArrayList<>();
        for (SliceMeta slice : object.slices()) {
            for (ReplicaRef replica : slice.replicas()) {
                if (!rewritten.contains(replica)) {
                    ranges.add(new RetiredRange(key, mark, replica, slice.length()));
                }
            }
        }
        return ranges;
    }

    /** Holds {@code ranges}, recorded as retired, until no lease up to their mark lives. */
    void retire(List<RetiredRange> ranges) {
        ranges.forEach(retired::retire);
    }

    /** A node is forgotten: its copies, and copies to or from it, are given up. */
    void forgotten(String nodeId) {
        for (CopyTable.Copy copy : copies.involving(nodeId)) {
            copies.remove(copy.id());
            if (!copy.target().nodeId().equals(nodeId) && copy.byNode()) {
                copies.stopping(copy);
            } else {
                releaseTarget(copy);
            }
        }
        copies.stoppedOn(nodeId, Set.of());
        retired.freed(retired.on(nodeId));
        scrubs.forget(nodeId);
        bad.removeIf(b -> b.nodeId().equals(nodeId));
        dirtyAll = true;
    }

    /** Something changed for every object: a node came back, a drain started or stopped, a pool was lost. */
    void changedEverywhere() {
        dirtyAll = true;
    }

    void changed(String key) {
        dirtyKeys.add(key);
    }

    /**
     * Replicas on the node, as of the last full pass. Until this master finished one (it just opened,
     * or took over), counted in the metadata: no count yet is not zero, and a drain told zero would let
     * the node be stopped with copies on it.
     */
    int replicasOn(String nodeId) throws StoreException {
        if (fullPassFinished) {
            return replicasByNode.getOrDefault(nodeId, 0);
        }
        int count = 0;
        for (List<ObjectMeta> page = metadata.objects("", "", PAGE); !page.isEmpty();
                page = metadata.objects("", page.getLast().key(), PAGE)) {
            for (ObjectMeta object : page) {
                count += object.replicasOn(nodeId);
            }
        }
        return count;
    }

    /** Whether the copy of the slice on the node was found bad and is not yet rewritten or dropped. */
    boolean isBad(String key, int slice, String nodeId) {
        return bad.contains(new BadReplica(key, slice, nodeId));
    }

    ReplicationStatus status() {
        return new ReplicationStatus(belowTarget, waiting, unreadable, bad.size(), copies.inFlight(), settings().repairAfter());
    }

    // ---- the periodic look

    /** Frees the retired ranges no reader holds any more; ones whose records cannot be deleted now wait for the next tick. */
    private void freeRetired(long now) {
        List<RetiredRange> releasable = retired.releasable(leases, now);
        for (int from = 0; from < releasable.size(); from += MAX_DROPS_PER_CHANGE) {
            List<RetiredRange> free = releasable.subList(from, Math.min(releasable.size(), from + MAX_DROPS_PER_CHANGE));
            MetadataBatch batch = new MetadataBatch();
            free.forEach(range -> batch.deleteRetired(range.replica()));
            try {
                metadata.apply(batch);
            } catch (StoreException e) {
                log.warn("cannot delete the records of {} retired range(s) no reader holds; freeing them later: {}",
                        releasable.size() - from, e.getMessage());
                return;
            }
            retired.freed(free);
            free.forEach(range -> nodes.release(range.replica(), range.length()));
        }
    }

    /**
     * Once a second: frees ranges no reader holds, gives up copies that stalled, and says which look
     * over the objects is due, if any.
     */
    Optional<Pass> tick() {
        long now = clock.getAsLong();
        freeRetired(now);
        for (CopyTable.Copy copy : copies.expired(now)) {
            giveUp(copy, copy.byNode() ? "no progress for " + settings().stallTimeout().toSeconds() + " s" : "not committed by its deadline");
        }
        Set<String> lost = nodes.statuses().stream().map(s -> s.nodeId()).filter(id -> nodes.isLost(id, settings().repairAfter()))
                .collect(Collectors.toSet());
        if (!lost.equals(lastLost)) {
            Set<String> newly = new HashSet<>(lost);
            newly.removeAll(lastLost);
            if (!newly.isEmpty()) {
                log.warn("nodes {} count as lost: their copies are made again on other nodes", newly);
            }
            lastLost = lost;
            dirtyAll = true;
        }
        if (dirtyAll || now - lastFullPass >= FULL_PASS_MILLIS) {
            dirtyAll = false;
            dirtyKeys.clear();
            lastFullPass = now;
            return Optional.of(new Pass(true, List.of()));
        }
        dirtyKeys.addAll(autoKeys);
        if (dirtyKeys.isEmpty()) {
            return Optional.empty();
        }
        Pass pass = new Pass(false, List.copyOf(dirtyKeys));
        dirtyKeys.clear();
        return Optional.of(pass);
    }

    /** Looks at the next page of objects of the pass; false when the pass is over. */
    boolean step(Pass pass) throws StoreException {
        List<ObjectMeta> page;
        if (pass.full) {
            page = metadata.objects("", pass.after, PAGE);
        } else {
            page = new ArrayList<>();
            for (; pass.index < pass.keys.size() && page.size() < PAGE; pass.index++) {
                metadata.object(pass.keys.get(pass.index)).ifPresent(page::add);
            }
        }
        for (ObjectMeta object : page) {
            examine(object, pass);
            pass.after = object.key();
        }
        return pass.full ? !page.isEmpty() : pass.index < pass.keys.size();
    }

    /** Ends a full pass: its counts become the status. Returns the nodes whose lost pools now hold nothing, to forget. */
    List<String> finish(Pass pass) {
        if (!pass.full) {
            return List.of();
        }
        belowTarget = pass.belowTarget;
        waiting = pass.waiting;
        unreadable = pass.unreadable;
        replicasByNode = Map.copyOf(pass.replicasByNode);
        fullPassFinished = true;
        return nodes.statuses().stream().map(s -> s.nodeId()).filter(id -> nodes.isPoolLost(id) && replicasByNode.getOrDefault(id, 0) == 0
                && copies.involving(id).isEmpty()).toList();
    }

    private void examine(ObjectMeta object, Pass pass) throws StoreException {
        long now = clock.getAsLong();
        int target = auto.target(object, leases.holders(object.key(), now), nodes.up().size(), now);
        boolean raised = AutoReplicas.raised(object, target);
        // In a master's first node deadline its nodes may not have registered with it yet (it restarted, or took over a
        // group): an auto count, capped by the nodes up, falls to its floor, and the copies readers raised would be dropped,
        // to be made again once the nodes are back.
        boolean settling = object.autoReplicas() && now - openedAt < config.nodeDeadline().toMillis();
        List<String> locals = object.localCopies().stream()
                .filter(id -> nodes.placeable().stream().anyMatch(n -> n.nodeId().equals(id))).toList();
        List<SliceMeta> slices = new ArrayList<>(object.slices());
        Map<ReplicaRef, Long> dropped = new LinkedHashMap<>();
        int recordsDropped = 0;
        for (int i = 0; i < slices.size(); i++) {
            SliceMeta slice = slices.get(i);
            if (copies.pendingFor(object.key(), i).isPresent()) {
                slice.replicas().forEach(r -> pass.replicasByNode.merge(r.nodeId(), 1, Integer::sum));
                continue;
            }
            List<ReplicaPlanner.Held> held = new ArrayList<>();
            for (ReplicaRef replica : slice.replicas()) {
                long used = Optional.ofNullable(nodes.space(replica.nodeId())).map(SegmentAllocator::used).orElse(0L);
                held.add(new ReplicaPlanner.Held(replica, state(object.key(), i, replica), object.localCopies().contains(replica.nodeId()),
                        used - pass.droppedBytes.getOrDefault(replica.nodeId(), 0L)));
            }
            ReplicaPlanner.Plan plan = ReplicaPlanner.plan(held, target, locals);
            // A dropped copy known bad takes a second record, its own.
            int index = i;
            int records = plan.drops().size()
                    + (int) plan.drops().stream().filter(r -> bad.contains(new BadReplica(object.key(), index, r.nodeId()))).count();
            if (!plan.drops().isEmpty() && (settling || recordsDropped + records > MAX_DROPS_PER_CHANGE)) {
                dirtyKeys.add(object.key()); // the rest in the next look, soon
            } else if (!plan.drops().isEmpty()) {
                List<ReplicaRef> kept = new ArrayList<>(slice.replicas());
                kept.removeAll(plan.drops());
                slices.set(i, slice.withReplicas(kept));
                plan.drops().forEach(r -> dropped.put(r, slice.length()));
                recordsDropped += records;
                plan.drops().forEach(r -> pass.droppedBytes.merge(r.nodeId(), slice.length(), Long::sum));
            }
            slices.get(i).replicas().forEach(r -> pass.replicasByNode.merge(r.nodeId(), 1, Integer::sum));
            pass.belowTarget += plan.belowTarget() ? 1 : 0;
            pass.waiting += plan.waiting() ? 1 : 0;
            pass.unreadable += plan.unreadable() ? 1 : 0;
            if (plan.copy().isPresent() && !schedule(object, i, plan.copy().get(), held, raised)) {
                dirtyKeys.add(object.key()); // no source or no room with a free hand now: look again soon
            }
        }
        if (!dropped.isEmpty()) {
            MetadataBatch change = new MetadataBatch().putObject(object.withSlices(slices));
            List<BadReplica> unmarked = new ArrayList<>();
            for (ReplicaRef replica : dropped.keySet()) {
                unmarked.addAll(unmarking(change, object.key(), sliceOf(object, replica), List.of(replica.nodeId())));
            }
            applyRetiring(change, object.key(), dropped);
            unmarked.forEach(bad::remove);
            log.info("dropped {} replica(s) of {} beyond what it needs: {}", dropped.size(), object.key(), dropped.keySet());
        }
    }

    private static int sliceOf(ObjectMeta object, ReplicaRef replica) {
        for (int i = 0; i < object.slices().size(); i++) {
            if (object.slice(i).replicas().contains(replica)) {
                return i;
            }
        }
        throw new IllegalStateException(replica + " is not a replica of " + object.key());
    }

    private ReplicaPlanner.State state(String key, int slice, ReplicaRef replica) {
        String nodeId = replica.nodeId();
        if (nodes.isLost(nodeId, settings().repairAfter())) {
            return ReplicaPlanner.State.LOST;
        }
        if (!nodes.get(nodeId).map(nodes::isUp).orElse(false)) {
            return ReplicaPlanner.State.WAITING;
        }
        if (isBad(key, slice, nodeId)) {
            return ReplicaPlanner.State.BAD;
        }
        return nodes.isDraining(nodeId) ? ReplicaPlanner.State.LEAVING : ReplicaPlanner.State.GOOD;
    }

    /** Hands the copy out to a node; false when no source or target is free for it now. */
    private boolean schedule(ObjectMeta object, int slice, ReplicaPlanner.Want want, List<ReplicaPlanner.Held> held, boolean raised) {
        int most = settings().copiesPerNode();
        Optional<ReplicaRef> source = held.stream().filter(ReplicaPlanner.Held::readable).map(ReplicaPlanner.Held::replica)
                .filter(r -> copies.sourcing(r.nodeId()) < most).min(Comparator.comparingInt(r -> copies.sourcing(r.nodeId())));
        if (source.isEmpty()) {
            return false;
        }
        List<NodeInfo> free = nodes.placeable().stream().filter(n -> copies.targeting(n.nodeId()) < most).toList();
        Optional<ReplicaRef> target;
        String replaces = "";
        CopyInFlight.Reason reason;
        switch (want) {
            case ReplicaPlanner.Want.Rewrite rewrite -> {
                if (nodes.isDraining(rewrite.bad().nodeId())) {
                    // A draining node takes no copy, its own rewrite neither: the good bytes go to another node in its place.
                    target = allocate(object, slice, free, false);
                } else {
                    // Not while a rewrite given up earlier may still land there: its late pieces would spoil the new one's.
                    target = free.stream().anyMatch(n -> n.nodeId().equals(rewrite.bad().nodeId()))
                            && !copies.stillWrittenInPlace(rewrite.bad()) ? Optional.of(rewrite.bad()) : Optional.empty();
                }
                replaces = rewrite.bad().nodeId();
                reason = CopyInFlight.Reason.BAD;
            }
            case ReplicaPlanner.Want.Move move -> {
                target = allocate(object, slice, free, false);
                replaces = move.from().nodeId();
                reason = move.reason();
            }
            case ReplicaPlanner.Want.Add add -> {
                target = allocate(object, slice, free, raised);
                reason = CopyInFlight.Reason.REPLICATE;
            }
            case ReplicaPlanner.Want.AddOn on -> {
                target = allocate(object, slice, free.stream().filter(n -> n.nodeId().equals(on.nodeId())).toList(), true);
                reason = CopyInFlight.Reason.LOCAL;
            }
        }
        if (target.isEmpty()) {
            return false;
        }
        SliceMeta meta = object.slice(slice);
        CopyTable.Copy copy = new CopyTable.Copy(UUID.randomUUID().toString(), object.key(), object.createdAt(), slice, meta.length(),
                target.get(), replaces, source.get().nodeId(), reason, true);
        copies.add(copy, clock.getAsLong() + settings().stallTimeout().toMillis());
        log.info("copy {} ({}): slice {} of {} from node {} to node {}{}", copy.id(), reason, slice, object.key(), copy.source(),
                copy.target().nodeId(), replaces.isEmpty() ? "" : copy.inPlace() ? " in place" : " in place of node " + replaces);
        return true;
    }

    /**
     * Room for one more copy of a slice on one of {@code candidates} that holds none; with
     * {@code spare}, only where it leaves the node under the high watermark (copies beyond what the
     * object asked for never crowd out puts).
     */
    private Optional<ReplicaRef> allocate(ObjectMeta object, int slice, List<NodeInfo> candidates, boolean spare) {
        SliceMeta meta = object.slice(slice);
        List<String> holders = meta.nodeIds();
        long aligned = SegmentAllocator.aligned(meta.length());
        List<NodeInfo> fit = candidates.stream().filter(n -> !holders.contains(n.nodeId())).filter(n -> !spare
                || nodes.space(n.nodeId()).used() + aligned <= (long) (config.highWatermark() * nodes.space(n.nodeId()).capacity()))
                .toList();
        List<ReplicaRef> placed = placement.place(slice, meta.length(), 1, fit, nodes);
        return placed.isEmpty() ? Optional.empty() : Optional.of(placed.getFirst());
    }
}
