package io.weightstore.store.ha;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.ReadLease;
import io.weightstore.store.api.RetiredRange;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoredNode;
import io.weightstore.store.grpc.LeaderGate;
import io.weightstore.store.grpc.Protos;
import io.weightstore.store.master.MetadataBatch;
import io.weightstore.store.master.MetadataStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's records in etcd, written only by the leader, each batch as one transaction that
 * commits only while the leader key still carries the leader's {@link Fence}. Because no one else
 * can write while the fence holds, the leader keeps a copy of every record in memory, loaded at
 * open, and answers reads from it: stat and locate cost no etcd round trip. A write refused by the
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
    static final int PAGE = 1000;
    /** Answers by which etcd says it applied nothing: the batch itself was wrong (too large, a key twice). */
    private static final Set<Status.Code> REFUSED_BEFORE_APPLYING = Set.of(Status.Code.INVALID_ARGUMENT, Status.Code.FAILED_PRECONDITION,
            Status.Code.OUT_OF_RANGE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.PERMISSION_DENIED, Status.Code.UNAUTHENTICATED);
    /** Orders keys as etcd and RocksDB do (by UTF-8 bytes), which for Java strings is code point order. */
    private static final Comparator<String> UTF8_ORDER = (a, b) -> {
        for (int i = 0, j = 0; i < a.length() && j < b.length(); ) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.codePointCount(0, a.length()), b.codePointCount(0, b.length()));
    };

    private final KV kv;
    private final ClusterKeys keys;
    private final Fence fence;
    private final Duration timeout;
    private final Runnable onLostAuthority;
    private final NavigableMap<String, ObjectMeta> objects = new TreeMap<>(UTF8_ORDER);
    private final Map<String, StoredNode> nodes = new TreeMap<>(UTF8_ORDER);
    private final Map<String, PutGrant> pending = new TreeMap<>();
    private final Map<String, LockState> locks = new TreeMap<>(UTF8_ORDER);
    private final Map<Long, ReadLease> leases = new TreeMap<>();
    private final Map<String, RetiredRange> retired = new TreeMap<>();
    private String lost;

    private EtcdMetadataStore(KV kv, ClusterKeys keys, Fence fence, Duration timeout, Runnable onLostAuthority) {
        this.kv = kv;
        this.keys = keys;
        this.fence = fence;
        this.timeout = timeout;
        this.onLostAuthority = onLostAuthority;
    }

    /**
     * Loads every record of the cluster, as of one etcd revision. {@code onLostAuthority} runs (once)
     * when a write is refused by the fence or its outcome is unknown.
     */
    static EtcdMetadataStore open(KV kv, ClusterKeys keys, Fence fence, Duration timeout, Runnable onLostAuthority)
            throws StoreException {
        EtcdMetadataStore store = new EtcdMetadataStore(kv, keys, fence, timeout, onLostAuthority);
        store.load();
        return store;
    }

    /**
     * Pages through {@code meta/} at the revision of the first page, so the copy is one consistent snapshot. Each page
     * is decoded while etcd sends the next: one after the other, decoding was a quarter of a new leader's load (20,000
     * objects: 0.64 s of reads, 0.21 s of decoding; 0.74 s overlapped; README, a group of masters).
     */
    private void load() throws StoreException {
        String prefix = keys.meta();
        ByteSequence end = Etcd.prefixEnd(prefix);
        String what = "a read of the metadata under " + prefix;
        GetResponse page = Etcd.await(kv.get(Etcd.bytes(prefix), page(end, 0)), timeout, what);
        long revision = page.getHeader().getRevision();
        int loaded = 0;
        while (true) {
            boolean last = !page.isMore() || page.getKvs().isEmpty();
            CompletableFuture<GetResponse> next = last ? null
                    : kv.get(Etcd.bytes(Etcd.text(page.getKvs().getLast().getKey()) + "\0"), page(end, revision));
            try {
                for (KeyValue record : page.getKvs()) {
                    remember(Etcd.text(record.getKey()).substring(prefix.length()), record.getValue().getBytes());
                    loaded++;
                }
            } catch (StoreException | RuntimeException e) {
                if (next != null) {
                    next.cancel(true);
                }
                throw e;
            }
            if (last) {
                break;
            }
            page = Etcd.await(next, timeout, what);
        }
        log.info("loaded {} metadata records of cluster {} at etcd revision {}", loaded, keys.cluster(), revision);
    }

    /** One page of the range up to {@code end}, at {@code revision} (0: the current one). */
    private static GetOption page(ByteSequence end, long revision) {
        // etcd returns a range in key order; asking for a sort would make it read the whole range for every page.
        GetOption.Builder option = GetOption.builder().withRange(end).withLimit(PAGE);
        if (revision != 0) {
            option.withRevision(revision);
        }
        return option.build();
    }

    private void remember(String name, byte[] value) throws StoreException {
        String kind = name.substring(0, 2);
        String id = name.substring(2);
        switch (kind) {
            case ClusterKeys.OBJECT -> objects.put(id, Protos.decodeObject(value));
            case ClusterKeys.NODE -> nodes.put(id, Protos.decodeNode(value));
            case ClusterKeys.PENDING -> pending.put(id, Protos.decodePut(value));
            case ClusterKeys.LOCK -> locks.put(id, Protos.decodeLock(value));
            case ClusterKeys.LEASE -> {
                ReadLease lease = Protos.decodeLease(value);
                leases.put(lease.leaseId(), lease);
            }
            case ClusterKeys.RETIRED -> retired.put(id, Protos.decodeRetired(value));
            default -> throw new StoreException(StoreException.Code.IO, "master metadata: unknown record " + keys.meta() + name);
        }
    }

    @Override
    public synchronized Optional<ObjectMeta> object(String key) throws StoreException {
        requireAuthority();
        return Optional.ofNullable(objects.get(key));
    }

    @Override
    public synchronized List<ObjectMeta> objects(String prefix, String startAfter, int limit) throws StoreException {
        requireAuthority();
        NavigableMap<String, ObjectMeta> from = UTF8_ORDER.compare(startAfter, prefix) >= 0 ? objects.tailMap(startAfter, false)
                : objects.tailMap(prefix, true);
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
        return List.copyOf(nodes.values());
    }

    @Override
    public synchronized List<PutGrant> pendingPuts() throws StoreException {
        requireAuthority();
        return List.copyOf(pending.values());
    }

    @Override
    public synchronized Optional<LockState> lock(String name) throws StoreException {
        requireAuthority();
        return Optional.ofNullable(locks.get(name));
    }

    @Override
    public synchronized List<ReadLease> leases() throws StoreException {
        requireAuthority();
        return List.copyOf(leases.values());
    }

    @Override
    public synchronized List<RetiredRange> retiredRanges() throws StoreException {
        requireAuthority();
        return List.copyOf(retired.values());
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
            mirror(change.change());
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
            case MetadataBatch.Change.DeleteObject c -> null;
            case MetadataBatch.Change.DeleteNode c -> null;
            case MetadataBatch.Change.DeletePending c -> null;
            case MetadataBatch.Change.DeleteLock c -> null;
            case MetadataBatch.Change.DeleteLease c -> null;
            case MetadataBatch.Change.DeleteRetired c -> null;
        };
    }

    private void mirror(MetadataBatch.Change change) {
        switch (change) {
            case MetadataBatch.Change.PutObject c -> objects.put(c.object().key(), c.object());
            case MetadataBatch.Change.DeleteObject c -> objects.remove(c.key());
            case MetadataBatch.Change.PutNode c -> nodes.put(c.node().info().nodeId(), c.node());
            case MetadataBatch.Change.DeleteNode c -> nodes.remove(c.nodeId());
            case MetadataBatch.Change.PutPending c -> pending.put(c.put().putId(), c.put());
            case MetadataBatch.Change.DeletePending c -> pending.remove(c.putId());
            case MetadataBatch.Change.PutLock c -> locks.put(c.name(), c.lock());
            case MetadataBatch.Change.DeleteLock c -> locks.remove(c.name());
            case MetadataBatch.Change.PutLease c -> leases.put(c.lease().leaseId(), c.lease());
            case MetadataBatch.Change.DeleteLease c -> leases.remove(c.leaseId());
            case MetadataBatch.Change.PutRetired c -> retired.put(MetadataBatch.retiredName(c.range().replica()), c.range());
            case MetadataBatch.Change.DeleteRetired c -> retired.remove(MetadataBatch.retiredName(c.replica()));
        }
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
