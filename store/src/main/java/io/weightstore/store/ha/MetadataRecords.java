package io.weightstore.store.ha;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
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
import io.weightstore.store.grpc.Protos;
import io.weightstore.store.master.MetadataBatch;
import java.time.Duration;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster's records under {@code meta/} in etcd, decoded, by kind: what a leader answers from
 * ({@link EtcdMetadataStore}) and what a follower keeps current ({@link FollowerCopy}). Each record
 * is an immutable value, so a copy copies the maps only. Not thread-safe: its owner serialises access.
 */
final class MetadataRecords {
    private static final Logger log = LoggerFactory.getLogger(MetadataRecords.class);
    static final int PAGE = 1000;

    private final NavigableMap<String, ObjectMeta> objects = new TreeMap<>(KeyOrder.UTF8);
    private final Map<String, StoredNode> nodes = new TreeMap<>(KeyOrder.UTF8);
    private final Map<String, PutGrant> pending = new TreeMap<>();
    private final Map<String, LockState> locks = new TreeMap<>(KeyOrder.UTF8);
    private final Map<Long, ReadLease> leases = new TreeMap<>();
    private final Map<String, RetiredRange> retired = new TreeMap<>();
    private final Map<String, BadCopy> bad = new TreeMap<>();
    private final Map<String, ReadTime> readTimes = new TreeMap<>(KeyOrder.UTF8);

    NavigableMap<String, ObjectMeta> objects() {
        return objects;
    }

    Map<String, StoredNode> nodes() {
        return nodes;
    }

    Map<String, PutGrant> pending() {
        return pending;
    }

    Map<String, LockState> locks() {
        return locks;
    }

    Map<Long, ReadLease> leases() {
        return leases;
    }

    Map<String, RetiredRange> retired() {
        return retired;
    }

    Map<String, BadCopy> bad() {
        return bad;
    }

    Map<String, ReadTime> readTimes() {
        return readTimes;
    }

    int size() {
        return objects.size() + nodes.size() + pending.size() + locks.size() + leases.size() + retired.size() + bad.size()
                + readTimes.size();
    }

    /** A copy that changes apart from this one. */
    MetadataRecords copy() {
        MetadataRecords copy = new MetadataRecords();
        copy.objects.putAll(objects);
        copy.nodes.putAll(nodes);
        copy.pending.putAll(pending);
        copy.locks.putAll(locks);
        copy.leases.putAll(leases);
        copy.retired.putAll(retired);
        copy.bad.putAll(bad);
        copy.readTimes.putAll(readTimes);
        return copy;
    }

    /**
     * Reads every record of {@code keys}' cluster into these (empty) records, paging through {@code meta/} at the
     * revision of the first page, so that they are one consistent snapshot; returns that revision. Each page is
     * decoded while etcd sends the next: one after the other, decoding was a quarter of a new leader's load (20,000
     * objects: 0.64 s of reads, 0.21 s of decoding; 0.74 s overlapped; README, a group of masters).
     */
    long load(KV kv, ClusterKeys keys, Duration timeout) throws StoreException {
        String prefix = keys.meta();
        Pages pages = new Pages(kv, Etcd.prefixEnd(prefix), timeout, "a read of the metadata under " + prefix);
        ByteSequence first = Etcd.bytes(prefix);
        GetResponse page = pages.await(pages.read(first, 0), first, 0);
        long revision = page.getHeader().getRevision();
        int loaded = 0;
        while (true) {
            boolean last = !page.isMore() || page.getKvs().isEmpty();
            ByteSequence from = last ? null : Etcd.bytes(Etcd.text(page.getKvs().getLast().getKey()) + "\0");
            CompletableFuture<GetResponse> next = last ? null : pages.read(from, revision);
            try {
                for (KeyValue record : page.getKvs()) {
                    put(keys, Etcd.text(record.getKey()).substring(prefix.length()), record.getValue().getBytes());
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
            page = pages.await(next, from, revision);
        }
        log.info("loaded {} metadata records of cluster {} at etcd revision {}", loaded, keys.cluster(), revision);
        return revision;
    }

    /**
     * Pages of the range up to {@code end}. A page larger than the client takes in one gRPC message (4 MiB by default) is read
     * again, and every page after it, with half as many records: a thousand objects of 5 GiB, a CRC32C per MiB each,
     * are 20 MiB. One record fits, as etcd takes none larger than 1.5 MiB.
     */
    private static final class Pages {
        private final KV kv;
        private final ByteSequence end;
        private final Duration timeout;
        private final String what;
        private int limit = PAGE;

        Pages(KV kv, ByteSequence end, Duration timeout, String what) {
            this.kv = kv;
            this.end = end;
            this.timeout = timeout;
            this.what = what;
        }

        /** The page from {@code from}, at {@code revision} (0: the current one). */
        CompletableFuture<GetResponse> read(ByteSequence from, long revision) {
            // etcd returns a range in key order; asking for a sort would make it read the whole range for every page.
            GetOption.Builder option = GetOption.builder().withRange(end).withLimit(limit);
            if (revision != 0) {
                option.withRevision(revision);
            }
            return kv.get(from, option.build());
        }

        /** The answer to {@code call}, the read of the page from {@code from}, or to that read again in smaller pages. */
        GetResponse await(CompletableFuture<GetResponse> call, ByteSequence from, long revision) throws StoreException {
            while (true) {
                try {
                    return Etcd.await(call, timeout, what);
                } catch (StoreException e) {
                    if (limit == 1 || Status.fromThrowable(e.getCause()).getCode() != Status.Code.RESOURCE_EXHAUSTED) {
                        throw e;
                    }
                    limit /= 2;
                    call = read(from, revision);
                }
            }
        }
    }

    /** Takes in the record etcd holds under {@code meta/NAME} (its kind's prefix, then its id). */
    void put(ClusterKeys keys, String name, byte[] value) throws StoreException {
        String id = name.substring(Math.min(2, name.length()));
        switch (name.substring(0, name.length() - id.length())) {
            case ClusterKeys.OBJECT -> objects.put(id, Protos.decodeObject(value));
            case ClusterKeys.NODE -> nodes.put(id, Protos.decodeNode(value));
            case ClusterKeys.PENDING -> pending.put(id, Protos.decodePut(value));
            case ClusterKeys.LOCK -> locks.put(id, Protos.decodeLock(value));
            case ClusterKeys.LEASE -> {
                ReadLease lease = Protos.decodeLease(value);
                leases.put(lease.leaseId(), lease);
            }
            case ClusterKeys.RETIRED -> retired.put(id, Protos.decodeRetired(value));
            case ClusterKeys.BAD -> bad.put(id, Protos.decodeBadCopy(value));
            case ClusterKeys.READ -> readTimes.put(id, Protos.decodeReadTime(value));
            default -> throw unknown(keys, name);
        }
    }

    /** Drops the record etcd held under {@code meta/NAME}. */
    void delete(ClusterKeys keys, String name) throws StoreException {
        String id = name.substring(Math.min(2, name.length()));
        switch (name.substring(0, name.length() - id.length())) {
            case ClusterKeys.OBJECT -> objects.remove(id);
            case ClusterKeys.NODE -> nodes.remove(id);
            case ClusterKeys.PENDING -> pending.remove(id);
            case ClusterKeys.LOCK -> locks.remove(id);
            case ClusterKeys.LEASE -> leases.remove(Long.parseUnsignedLong(id, 16));
            case ClusterKeys.RETIRED -> retired.remove(id);
            case ClusterKeys.BAD -> bad.remove(id);
            case ClusterKeys.READ -> readTimes.remove(id);
            default -> throw unknown(keys, name);
        }
    }

    private static StoreException unknown(ClusterKeys keys, String name) {
        return new StoreException(StoreException.Code.IO, "master metadata: unknown record " + keys.meta() + name);
    }

    /** Applies a change the leader has written. */
    void apply(MetadataBatch.Change change) {
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
            case MetadataBatch.Change.PutBadCopy c -> bad.put(MetadataBatch.badCopyName(c.copy()), c.copy());
            case MetadataBatch.Change.DeleteBadCopy c -> bad.remove(MetadataBatch.badCopyName(c.key(), c.slice(), c.nodeId()));
            case MetadataBatch.Change.PutReadTime c -> readTimes.put(c.read().key(), c.read());
            case MetadataBatch.Change.DeleteReadTime c -> readTimes.remove(c.key());
        }
    }
}
