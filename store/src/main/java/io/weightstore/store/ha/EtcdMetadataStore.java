package io.weightstore.store.ha;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import io.weightstore.store.api.BadCopy;
import io.weightstore.store.api.KeyOrder;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.ReadTime;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import io.weightstore.store.grpc.LeaderGate;
import io.weightstore.store.grpc.Protos;
import io.weightstore.store.master.MetadataBatch;
import io.weightstore.store.master.MetadataStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's records in etcd, written only by the leader, each batch as one transaction that
 * commits only while the leader key still carries the leader's {@link Fence}. Because no one else
 * can write while the fence holds, the leader keeps a copy of every record in memory, loaded at
 * open or taken over from the copy it kept while it followed ({@link FollowerCopy}), and answers
 * reads from it: stat and locate cost no etcd round trip. A write refused by the
 * fence, or whose outcome is unknown (etcd did not answer in time), leaves the copy possibly behind
 * etcd, so the store stops answering and tells the master group to step down; the next leader loads
 * a fresh copy.
 */
final class EtcdMetadataStore implements MetadataStore {
    private static final Logger log = LoggerFactory.getLogger(EtcdMetadataStore.class);
    /** etcd's default --max-txn-ops; a batch of more would be refused by etcd anyway. */
    static final int MAX_BATCH = 128;
    /** Bytes of records in one part of {@link #applyInParts}: well under etcd's default request limit of 1.5 MiB. */
    static final int MAX_PART_BYTES = 1 << 20;
    /**
     * Answers by which etcd says it applied nothing: the batch itself was wrong (too large, a key twice). Not
     * RESOURCE_EXHAUSTED: etcd answers "database space exceeded" also for a transaction it applied, once its quota
     * check at apply time finds the database over its quota (etcd-io/etcd#16659), so that write's outcome is unknown.
     */
    private static final Set<Status.Code> REFUSED_BEFORE_APPLYING = Set.of(Status.Code.INVALID_ARGUMENT, Status.Code.FAILED_PRECONDITION,
            Status.Code.OUT_OF_RANGE, Status.Code.PERMISSION_DENIED, Status.Code.UNAUTHENTICATED);

    private final KV kv;
    private final ClusterKeys keys;
    private final Fence fence;
    private final Duration timeout;
    private final Runnable onLostAuthority;
    private final MetadataRecords records;
    private String lost;

    private EtcdMetadataStore(KV kv, ClusterKeys keys, Fence fence, Duration timeout, Runnable onLostAuthority, MetadataRecords records) {
        this.kv = kv;
        this.keys = keys;
        this.fence = fence;
        this.timeout = timeout;
        this.onLostAuthority = onLostAuthority;
        this.records = records;
    }

    /**
     * Loads every record of the cluster, as of one etcd revision. {@code onLostAuthority} runs (once)
     * when a write is refused by the fence or its outcome is unknown.
     */
    static EtcdMetadataStore open(KV kv, ClusterKeys keys, Fence fence, Duration timeout, Runnable onLostAuthority)
            throws StoreException {
        MetadataRecords records = new MetadataRecords();
        records.load(kv, keys, timeout);
        return new EtcdMetadataStore(kv, keys, fence, timeout, onLostAuthority, records);
    }

    /**
     * As {@link #open}, from {@code records} that hold every record as of the fence's revision or later (a
     * follower's copy, {@link FollowerCopy}) rather than from a load; the store owns them from now on.
     */
    static EtcdMetadataStore over(KV kv, ClusterKeys keys, Fence fence, Duration timeout, Runnable onLostAuthority,
            MetadataRecords records) {
        return new EtcdMetadataStore(kv, keys, fence, timeout, onLostAuthority, records);
    }

    @Override
    public synchronized Optional<ObjectMeta> object(String key) throws StoreException {
        requireAuthority();
        return Optional.ofNullable(records.objects().get(key));
    }

    @Override
    public synchronized List<ObjectMeta> objects(String prefix, String startAfter, int limit) throws StoreException {
        requireAuthority();
        NavigableMap<String, ObjectMeta> objects = records.objects();
        NavigableMap<String, ObjectMeta> from = KeyOrder.compare(startAfter, prefix) >= 0
                ? objects.tailMap(startAfter, false) : objects.tailMap(prefix, true);
        List<ObjectMeta> found = new ArrayList<>();
        for (Map.Entry<String, ObjectMeta> entry : from.entrySet()) {
            if (found.size() >= limit || !entry.getKey().startsWith(prefix)) {
                break;
            }
            found.add(entry.getValue());
        }
        return found;
    }

    @Override
    public synchronized List<StoredNode> nodes() throws StoreException {
        requireAuthority();
        return List.copyOf(records.nodes().values());
    }

    @Override
    public synchronized List<PutGrant> pendingPuts() throws StoreException {
        requireAuthority();
        return List.copyOf(records.pending().values());
    }

    @Override
    public synchronized Optional<LockState> lock(String name) throws StoreException {
        requireAuthority();
        return Optional.ofNullable(records.locks().get(name));
    }

    @Override
    public synchronized Map<String, LockState> locks() throws StoreException {
        requireAuthority();
        return Map.copyOf(records.locks());
    }

    @Override
    public synchronized List<ReadLease> leases() throws StoreException {
        requireAuthority();
        return List.copyOf(records.leases().values());
    }

    @Override
    public synchronized List<RetiredRange> retiredRanges() throws StoreException {
        requireAuthority();
        return List.copyOf(records.retired().values());
    }

    @Override
    public synchronized List<BadCopy> badCopies() throws StoreException {
        requireAuthority();
        return List.copyOf(records.bad().values());
    }

    @Override
    public synchronized List<ReadTime> readTimes() throws StoreException {
        requireAuthority();
        return List.copyOf(records.readTimes().values());
    }

    @Override
    public synchronized void apply(MetadataBatch batch) throws StoreException {
        apply(batch.changes().stream().map(this::encode).toList());
    }

    /** As {@link #apply(MetadataBatch)}, of changes encoded once: {@link #applyInParts} encodes them to size its parts. */
    private void apply(List<Encoded> changes) throws StoreException {
        requireAuthority();
        if (changes.isEmpty()) {
            return;
        }
        if (changes.size() > MAX_BATCH) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "a metadata batch of " + changes.size()
                    + " records is more than the " + MAX_BATCH + " etcd takes in one transaction");
        }
        // etcd refuses a key twice in one transaction; within a batch the last change of a record wins.
        Map<ByteSequence, Op> ops = new LinkedHashMap<>();
        for (Encoded change : changes) {
            ops.remove(change.key());
            ops.put(change.key(), change.op());
        }
        TxnResponse response;
        try {
            response = Etcd.await(kv.txn()
                    .If(new Cmp(keys.leader(), Cmp.Op.EQUAL, CmpTarget.createRevision(fence.revision())))
                    .Then(ops.values().toArray(Op[]::new))
                    .Else(Op.get(keys.leader(), GetOption.DEFAULT))
                    .commit(), timeout, "a write of " + changes.size() + " metadata records");
        } catch (StoreException e) {
            if (REFUSED_BEFORE_APPLYING.contains(Status.fromThrowable(e.getCause()).getCode())) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "etcd refused a metadata write of " + changes.size()
                        + " records, so nothing of it was written: " + e.getCause().getMessage(), e);
            }
            throw loseAuthority("the outcome of a metadata write is unknown (" + e.getMessage() + ")", e);
        }
        if (!response.isSucceeded()) {
            List<KeyValue> holder = response.getGetResponses().isEmpty() ? List.of() : response.getGetResponses().getFirst().getKvs();
            throw loseAuthority("this master (" + fence.holder() + ", leader since etcd revision " + fence.revision()
                    + ") is no longer the leader: the leader key is " + (holder.isEmpty() ? "gone"
                    : "held by " + Etcd.text(holder.getFirst().getValue()) + " since revision " + holder.getFirst().getCreateRevision())
                    + "; its write of " + changes.size() + " records was refused", null);
        }
        for (Encoded change : changes) {
            records.apply(change.change());
        }
    }

    @Override
    public synchronized void applyInParts(MetadataBatch batch) throws StoreException {
        List<Encoded> part = new ArrayList<>();
        long partBytes = 0;
        int applied = 0;
        for (MetadataBatch.Change change : batch.changes()) {
            Encoded encoded = encode(change);
            if (!part.isEmpty() && (part.size() == MAX_BATCH || partBytes + encoded.bytes() > MAX_PART_BYTES)) {
                applied += applyPart(List.copyOf(part), applied);
                part.clear();
                partBytes = 0;
            }
            part.add(encoded);
            partBytes += encoded.bytes();
        }
        if (!part.isEmpty()) {
            applyPart(List.copyOf(part), applied);
        }
    }

    /** One part whole; once an earlier part is in etcd, a refusal leaves the master's copy behind, so it steps down. */
    private int applyPart(List<Encoded> part, int applied) throws StoreException {
        try {
            apply(part);
        } catch (StoreException e) {
            if (applied > 0 && lost == null) {
                throw loseAuthority("a write in parts stopped after " + applied + " records (" + e.getMessage() + ")", e);
            }
            throw e;
        }
        return part.size();
    }

    private ByteSequence recordKey(MetadataBatch.Change change) {
        return switch (change) {
            case MetadataBatch.Change.PutObject c -> keys.record(ClusterKeys.OBJECT, c.object().key());
            case MetadataBatch.Change.DeleteObject c -> keys.record(ClusterKeys.OBJECT, c.key());
            case MetadataBatch.Change.PutNode c -> keys.record(ClusterKeys.NODE, c.node().info().nodeId());
            case MetadataBatch.Change.DeleteNode c -> keys.record(ClusterKeys.NODE, c.nodeId());
            case MetadataBatch.Change.PutPending c -> keys.record(ClusterKeys.PENDING, c.put().putId());
            case MetadataBatch.Change.DeletePending c -> keys.record(ClusterKeys.PENDING, c.putId());
            case MetadataBatch.Change.PutLock c -> keys.record(ClusterKeys.LOCK, c.name());
            case MetadataBatch.Change.DeleteLock c -> keys.record(ClusterKeys.LOCK, c.name());
            case MetadataBatch.Change.PutLease c -> keys.record(ClusterKeys.LEASE, leaseName(c.lease().leaseId()));
            case MetadataBatch.Change.DeleteLease c -> keys.record(ClusterKeys.LEASE, leaseName(c.leaseId()));
            case MetadataBatch.Change.PutRetired c -> keys.record(ClusterKeys.RETIRED, MetadataBatch.retiredName(c.range().replica()));
            case MetadataBatch.Change.DeleteRetired c -> keys.record(ClusterKeys.RETIRED, MetadataBatch.retiredName(c.replica()));
            case MetadataBatch.Change.PutBadCopy c -> keys.record(ClusterKeys.BAD, MetadataBatch.badCopyName(c.copy()));
            case MetadataBatch.Change.DeleteBadCopy c -> keys.record(ClusterKeys.BAD,
                    MetadataBatch.badCopyName(c.key(), c.slice(), c.nodeId()));
            case MetadataBatch.Change.PutReadTime c -> keys.record(ClusterKeys.READ, c.read().key());
            case MetadataBatch.Change.DeleteReadTime c -> keys.record(ClusterKeys.READ, c.key());
        };
    }

    private Encoded encode(MetadataBatch.Change change) {
        return new Encoded(change, recordKey(change), value(change));
    }

    /** A change with its record's key and bytes (null for a delete). */
    private record Encoded(MetadataBatch.Change change, ByteSequence key, byte[] value) {
        long bytes() {
            return key.size() + (value == null ? 0 : value.length);
        }

        Op op() {
            return value == null ? Op.delete(key, DeleteOption.DEFAULT) : Op.put(key, ByteSequence.from(value), PutOption.DEFAULT);
        }
    }

    /** A record's bytes; null for a delete. */
    private static byte[] value(MetadataBatch.Change change) {
        return switch (change) {
            case MetadataBatch.Change.PutObject c -> Protos.encode(c.object());
            case MetadataBatch.Change.PutNode c -> Protos.encode(c.node());
            case MetadataBatch.Change.PutPending c -> Protos.encode(c.put());
            case MetadataBatch.Change.PutLock c -> Protos.encode(c.lock());
            case MetadataBatch.Change.PutLease c -> Protos.encode(c.lease());
            case MetadataBatch.Change.PutRetired c -> Protos.encode(c.range());
            case MetadataBatch.Change.PutBadCopy c -> Protos.encode(c.copy());
            case MetadataBatch.Change.PutReadTime c -> Protos.encode(c.read());
            case MetadataBatch.Change.DeleteObject c -> null;
            case MetadataBatch.Change.DeleteNode c -> null;
            case MetadataBatch.Change.DeletePending c -> null;
            case MetadataBatch.Change.DeleteLock c -> null;
            case MetadataBatch.Change.DeleteLease c -> null;
            case MetadataBatch.Change.DeleteRetired c -> null;
            case MetadataBatch.Change.DeleteBadCopy c -> null;
            case MetadataBatch.Change.DeleteReadTime c -> null;
        };
    }

    /** Lease ids are unique across objects, so the id alone names the record. */
    private static String leaseName(long leaseId) {
        return Long.toHexString(leaseId);
    }

    private StoreException loseAuthority(String why, Exception cause) {
        boolean first = lost == null;
        lost = why;
        if (first) {
            log.warn("master metadata: {}; stepping down", why);
            onLostAuthority.run();
        }
        return LeaderGate.steppedDown(why, cause);
    }

    private void requireAuthority() throws StoreException {
        if (lost != null) {
            throw LeaderGate.steppedDown("this master stepped down and serves no metadata: " + lost, null);
        }
    }

    /** Memory only: the records stay in etcd for the next leader. */
    @Override
    public synchronized void close() {
        if (lost == null) {
            lost = "closed";
        }
    }
}
