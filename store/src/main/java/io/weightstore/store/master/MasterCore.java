package io.weightstore.store.master;

import static io.weightstore.store.StoreException.Code.ALREADY_EXISTS;
import static io.weightstore.store.StoreException.Code.FAILED_PRECONDITION;
import static io.weightstore.store.StoreException.Code.INVALID_ARGUMENT;
import static io.weightstore.store.StoreException.Code.NOT_FOUND;
import static io.weightstore.store.StoreException.Code.NO_SPACE;
import static io.weightstore.store.StoreException.Code.UNAVAILABLE;

import io.weightstore.store.MasterApi;
import io.weightstore.store.ObjectKeys;
import io.weightstore.store.StoreException;
import io.weightstore.store.proto.GetReplicasRequest;
import io.weightstore.store.proto.GetReplicasResponse;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LockRecord;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.LockResponse;
import io.weightstore.store.proto.NodeInfo;
import io.weightstore.store.proto.ObjectMeta;
import io.weightstore.store.proto.PendingPut;
import io.weightstore.store.proto.PutAbortRequest;
import io.weightstore.store.proto.PutAbortResponse;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutEndResponse;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.proto.RegisterNodeResponse;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.ReleaseLeaseResponse;
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.RemoveResponse;
import io.weightstore.store.proto.Replica;
import io.weightstore.store.proto.SetPinnedRequest;
import io.weightstore.store.proto.SetPinnedResponse;
import io.weightstore.store.proto.Slice;
import io.weightstore.store.proto.SliceChecksums;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatResponse;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master: node registry, object table with slice placement, read leases, locks and pins, over
 * crash-safe metadata. Allocation state and liveness are rebuilt from the metadata at start-up.
 * Every operation holds the one monitor: metadata operations are few and small next to the bytes
 * they describe, and a single order of events keeps the invariants obvious.
 */
public final class MasterCore implements MasterApi {
    private static final Logger log = LoggerFactory.getLogger(MasterCore.class);
    private static final int MAX_LIST_LIMIT = 10_000;
    private static final int DEFAULT_LIST_LIMIT = 1_000;

    private final MasterDb db;
    private final MasterConfig config;
    private final LongSupplier clock;
    private final Map<String, NodeInfo> nodes = new LinkedHashMap<>();
    private final Map<String, SegmentAllocator> allocators = new HashMap<>();
    private final Map<String, Long> lastHeartbeat = new HashMap<>();
    private final Map<String, PendingPut> pending = new HashMap<>();
    private final Map<String, Map<Long, Long>> leases = new HashMap<>();
    private final Map<String, Long> lastAccess = new HashMap<>();
    private final AtomicLong leaseIds = new AtomicLong();
    private final ScheduledExecutorService reaper;
    private long objectCount;

    private MasterCore(MasterDb db, MasterConfig config, LongSupplier clock) throws StoreException {
        this.db = db;
        this.config = config;
        this.clock = clock;
        recover();
        this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("master-reaper").factory());
        reaper.scheduleWithFixedDelay(this::reapExpiredPuts, 1, 1, TimeUnit.SECONDS);
    }

    public static MasterCore open(Path dataDir, MasterConfig config) throws StoreException {
        return open(dataDir, config, System::currentTimeMillis);
    }

    static MasterCore open(Path dataDir, MasterConfig config, LongSupplier clock) throws StoreException {
        MasterDb db = MasterDb.open(dataDir);
        try {
            return new MasterCore(db, config, clock);
        } catch (StoreException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    private void recover() throws StoreException {
        for (NodeInfo node : db.scanAll(MasterDb.NODE, NodeInfo.parser())) {
            nodes.put(node.getNodeId(), node);
            allocators.put(node.getNodeId(), new SegmentAllocator(node.getCapacity()));
        }
        List<ObjectMeta> objects = db.scanAll(MasterDb.OBJECT, ObjectMeta.parser());
        for (ObjectMeta object : objects) {
            reserve(object);
            lastAccess.put(object.getKey(), object.getCreatedMs());
        }
        objectCount = objects.size();
        for (PendingPut put : db.scanAll(MasterDb.PENDING, PendingPut.parser())) {
            pending.put(put.getPutId(), put);
            reserve(put.getObject());
        }
        log.info("master recovered {} nodes, {} objects, {} pending puts", nodes.size(), objectCount, pending.size());
    }

    private void reserve(ObjectMeta object) {
        for (Slice slice : object.getSlicesList()) {
            for (Replica replica : slice.getReplicasList()) {
                SegmentAllocator allocator = allocators.get(replica.getNodeId());
                if (allocator != null) {
                    allocator.reserve(replica.getOffset(), slice.getLength());
                }
            }
        }
    }

    private void release(ObjectMeta object) {
        for (Slice slice : object.getSlicesList()) {
            for (Replica replica : slice.getReplicasList()) {
                SegmentAllocator allocator = allocators.get(replica.getNodeId());
                if (allocator != null) {
                    allocator.release(replica.getOffset(), slice.getLength());
                }
            }
        }
    }

    // ---- nodes

    @Override
    public synchronized RegisterNodeResponse registerNode(RegisterNodeRequest request) throws StoreException {
        NodeInfo node = request.getNode();
        if (node.getNodeId().isEmpty() || node.getCapacity() <= 0) {
            throw new StoreException(INVALID_ARGUMENT, "node registration needs an id and a capacity > 0: nodeId="
                    + node.getNodeId() + " capacity=" + node.getCapacity());
        }
        NodeInfo known = nodes.get(node.getNodeId());
        if (known != null && known.getCapacity() != node.getCapacity()) {
            throw new StoreException(INVALID_ARGUMENT, "node " + node.getNodeId() + " registered with capacity "
                    + known.getCapacity() + ", now " + node.getCapacity() + "; a pool cannot change size");
        }
        NodeInfo stored = node.toBuilder().clearUsed().clearUp().clearLastHeartbeatMs().build();
        db.put(MasterDb.NODE + node.getNodeId(), stored);
        nodes.put(node.getNodeId(), stored);
        allocators.computeIfAbsent(node.getNodeId(), id -> new SegmentAllocator(node.getCapacity()));
        lastHeartbeat.put(node.getNodeId(), clock.getAsLong());
        log.info("node {} registered at {}:{} with {} bytes ({})", node.getNodeId(), node.getHost(), node.getPort(),
                node.getCapacity(), known == null ? "new" : "known");
        return RegisterNodeResponse.newBuilder().setHeartbeatIntervalMs(config.heartbeatInterval().toMillis()).build();
    }

    @Override
    public synchronized HeartbeatResponse heartbeat(HeartbeatRequest request) {
        boolean known = nodes.containsKey(request.getNodeId());
        if (known) {
            lastHeartbeat.put(request.getNodeId(), clock.getAsLong());
        }
        return HeartbeatResponse.newBuilder().setKnown(known).build();
    }

    private boolean isUp(NodeInfo node) {
        if (node.getPort() == 0) {
            return true; // an in-process pool lives and dies with the master
        }
        Long last = lastHeartbeat.get(node.getNodeId());
        return last != null && clock.getAsLong() - last <= config.nodeDeadline().toMillis();
    }

    private NodeInfo withLiveness(NodeInfo node) {
        SegmentAllocator allocator = allocators.get(node.getNodeId());
        return node.toBuilder().setUp(isUp(node)).setUsed(allocator.used())
                .setLastHeartbeatMs(lastHeartbeat.getOrDefault(node.getNodeId(), 0L)).build();
    }

    // ---- puts

    @Override
    public synchronized PutStartResponse putStart(PutStartRequest request) throws StoreException {
        String key = ObjectKeys.validate(request.getKey());
        long size = request.getSize();
        int replicas = Math.max(1, request.getReplicas());
        long sliceSize = request.getSliceSize() == 0 ? config.sliceSize() : request.getSliceSize();
        if (size < 0 || sliceSize <= 0 || sliceSize % config.checksumBlockSize() != 0) {
            throw new StoreException(INVALID_ARGUMENT, "put of " + key + ": size must be >= 0 and the slice size a multiple of "
                    + config.checksumBlockSize() + ": size=" + size + " sliceSize=" + sliceSize);
        }
        if (!request.getReplace() && db.get(objectKey(key), ObjectMeta.parser()) != null) {
            throw new StoreException(ALREADY_EXISTS, "object " + key + " exists; ask for replace to overwrite it");
        }
        for (PendingPut put : pending.values()) {
            if (put.getObject().getKey().equals(key)) {
                throw new StoreException(ALREADY_EXISTS, "object " + key + " is being written by put " + put.getPutId());
            }
        }
        List<NodeInfo> up = nodes.values().stream().filter(this::isUp).toList();
        if (up.size() < replicas) {
            throw new StoreException(UNAVAILABLE, "put of " + key + " needs " + replicas + " nodes up, " + up.size() + " are");
        }
        ObjectMeta.Builder object = ObjectMeta.newBuilder().setKey(key).setSize(size).setSliceSize(sliceSize)
                .setChecksumBlockSize(config.checksumBlockSize()).setPinned(request.getPin())
                .setCreatedMs(clock.getAsLong()).setReplicas(replicas);
        evictIfNeeded(size * replicas, key);
        int sliceCount = (int) Math.ceilDiv(size, sliceSize);
        for (int i = 0; i < sliceCount; i++) {
            long length = Math.min(sliceSize, size - i * sliceSize);
            Slice.Builder slice = Slice.newBuilder().setOffset(i * sliceSize).setLength(length);
            if (!place(slice, up, replicas, i)) {
                release(object.addSlices(slice).build());
                throw new StoreException(NO_SPACE, "no room for " + key + " (" + size + " bytes x " + replicas
                        + " replicas): slice " + i + " fits on fewer than " + replicas + " nodes");
            }
            object.addSlices(slice);
        }
        String putId = UUID.randomUUID().toString();
        long deadline = clock.getAsLong() + config.putTimeout().toMillis();
        PendingPut put = PendingPut.newBuilder().setPutId(putId).setObject(object).setDeadlineMs(deadline).build();
        db.put(MasterDb.PENDING + putId, put);
        pending.put(putId, put);
        PutStartResponse.Builder response = PutStartResponse.newBuilder().setPutId(putId).setObject(object).setDeadlineMs(deadline);
        nodesOf(object.build()).forEach(response::addNodes);
        return response.build();
    }

    /** Puts a slice's replicas on distinct nodes, starting the scan at a different node per slice to spread load. */
    private boolean place(Slice.Builder slice, List<NodeInfo> up, int replicas, int sliceIndex) {
        List<NodeInfo> candidates = new ArrayList<>(up);
        Collections.rotate(candidates, -(sliceIndex % candidates.size()));
        candidates.sort(Comparator.comparingLong((NodeInfo n) -> -allocators.get(n.getNodeId()).free() / slice.getLength()));
        for (NodeInfo node : candidates) {
            if (slice.getReplicasCount() == replicas) {
                break;
            }
            OptionalLong offset = allocators.get(node.getNodeId()).allocate(slice.getLength());
            if (offset.isPresent()) {
                slice.addReplicas(Replica.newBuilder().setNodeId(node.getNodeId()).setOffset(offset.getAsLong()));
            }
        }
        return slice.getReplicasCount() == replicas;
    }

    private void evictIfNeeded(long incoming, String forKey) throws StoreException {
        long capacity = allocators.values().stream().mapToLong(SegmentAllocator::capacity).sum();
        long used = allocators.values().stream().mapToLong(SegmentAllocator::used).sum();
        if (used + incoming <= config.highWatermark() * capacity) {
            return;
        }
        long target = (long) (config.lowWatermark() * capacity) - incoming;
        List<ObjectMeta> candidates = new ArrayList<>();
        db.scan(MasterDb.OBJECT, "", Integer.MAX_VALUE, ObjectMeta.parser(), (k, object) -> {
            if (!object.getPinned() && !isLeased(object.getKey())) {
                candidates.add(object);
            }
        });
        candidates.sort(Comparator.comparingLong(o -> lastAccess.getOrDefault(o.getKey(), o.getCreatedMs())));
        for (ObjectMeta victim : candidates) {
            if (used <= target) {
                break;
            }
            log.info("evicting {} ({} bytes, unpinned, least recently read) to make room for {}", victim.getKey(),
                    victim.getSize(), forKey);
            removeObject(victim);
            used = allocators.values().stream().mapToLong(SegmentAllocator::used).sum();
        }
    }

    @Override
    public synchronized PutEndResponse putEnd(PutEndRequest request) throws StoreException {
        PendingPut put = pending.get(request.getPutId());
        if (put == null) {
            throw new StoreException(NOT_FOUND, "put " + request.getPutId() + " is unknown, expired or already ended");
        }
        ObjectMeta.Builder object = put.getObject().toBuilder();
        if (request.getChecksumsCount() != object.getSlicesCount()) {
            throw new StoreException(INVALID_ARGUMENT, "put of " + object.getKey() + " has " + object.getSlicesCount()
                    + " slices, got checksums for " + request.getChecksumsCount());
        }
        for (int i = 0; i < object.getSlicesCount(); i++) {
            Slice slice = object.getSlices(i);
            SliceChecksums sums = request.getChecksums(i);
            long blocks = Math.ceilDiv(slice.getLength(), (long) object.getChecksumBlockSize());
            if (sums.getBlockCrcsCount() != blocks) {
                throw new StoreException(INVALID_ARGUMENT, "put of " + object.getKey() + ": slice " + i + " has " + blocks
                        + " checksum blocks, got " + sums.getBlockCrcsCount());
            }
            object.setSlices(i, slice.toBuilder().clearBlockCrcs().addAllBlockCrcs(sums.getBlockCrcsList()));
        }
        ObjectMeta sealed = object.setCreatedMs(clock.getAsLong()).build();
        ObjectMeta previous = db.get(objectKey(sealed.getKey()), ObjectMeta.parser());
        db.write(new MasterDb.Batch().delete(MasterDb.PENDING + put.getPutId()).put(objectKey(sealed.getKey()), sealed));
        pending.remove(put.getPutId());
        if (previous != null) {
            release(previous);
        } else {
            objectCount++;
        }
        lastAccess.put(sealed.getKey(), sealed.getCreatedMs());
        return PutEndResponse.newBuilder().setObject(sealed).build();
    }

    @Override
    public synchronized PutAbortResponse putAbort(PutAbortRequest request) throws StoreException {
        PendingPut put = pending.remove(request.getPutId());
        if (put != null) {
            db.delete(MasterDb.PENDING + put.getPutId());
            release(put.getObject());
        }
        return PutAbortResponse.getDefaultInstance();
    }

    private synchronized void reapExpiredPuts() {
        long now = clock.getAsLong();
        for (PendingPut put : List.copyOf(pending.values())) {
            if (put.getDeadlineMs() < now) {
                log.warn("reclaiming abandoned put {} of {}", put.getPutId(), put.getObject().getKey());
                try {
                    putAbort(PutAbortRequest.newBuilder().setPutId(put.getPutId()).build());
                } catch (StoreException e) {
                    log.error("cannot reclaim put {}: {}", put.getPutId(), e.getMessage());
                }
            }
        }
    }

    /** Runs the reclaim pass now, for tests that move the clock instead of waiting. */
    void reapNow() {
        reapExpiredPuts();
    }

    // ---- reads

    @Override
    public synchronized StatResponse stat(StatRequest request) throws StoreException {
        return StatResponse.newBuilder().setObject(sealed(request.getKey())).build();
    }

    @Override
    public synchronized GetReplicasResponse getReplicas(GetReplicasRequest request) throws StoreException {
        ObjectMeta object = sealed(request.getKey());
        long leaseMs = request.getLeaseMs() > 0 ? request.getLeaseMs() : config.leaseDuration().toMillis();
        long now = clock.getAsLong();
        long leaseId = leaseIds.incrementAndGet();
        long expires = now + leaseMs;
        leases.computeIfAbsent(object.getKey(), k -> new HashMap<>()).put(leaseId, expires);
        lastAccess.put(object.getKey(), now);
        GetReplicasResponse.Builder response = GetReplicasResponse.newBuilder().setObject(object)
                .setLeaseId(leaseId).setLeaseExpiresMs(expires);
        nodesOf(object).forEach(response::addNodes);
        return response.build();
    }

    @Override
    public synchronized ReleaseLeaseResponse releaseLease(ReleaseLeaseRequest request) {
        Map<Long, Long> held = leases.get(request.getKey());
        if (held != null) {
            held.remove(request.getLeaseId());
            if (held.isEmpty()) {
                leases.remove(request.getKey());
            }
        }
        return ReleaseLeaseResponse.getDefaultInstance();
    }

    private boolean isLeased(String key) {
        Map<Long, Long> held = leases.get(key);
        if (held == null) {
            return false;
        }
        long now = clock.getAsLong();
        held.values().removeIf(expires -> expires < now);
        if (held.isEmpty()) {
            leases.remove(key);
            return false;
        }
        return true;
    }

    private List<NodeInfo> nodesOf(ObjectMeta object) {
        Map<String, NodeInfo> involved = new LinkedHashMap<>();
        for (Slice slice : object.getSlicesList()) {
            for (Replica replica : slice.getReplicasList()) {
                NodeInfo node = nodes.get(replica.getNodeId());
                if (node != null) {
                    involved.putIfAbsent(node.getNodeId(), withLiveness(node));
                }
            }
        }
        return List.copyOf(involved.values());
    }

    // ---- removal, listing, pins

    @Override
    public synchronized RemoveResponse remove(RemoveRequest request) throws StoreException {
        ObjectMeta object = sealed(request.getKey());
        if (!request.getForce() && isLeased(object.getKey())) {
            Map<Long, Long> held = leases.get(object.getKey());
            throw new StoreException(FAILED_PRECONDITION, "object " + object.getKey() + " is leased by " + held.size()
                    + " reader(s) until " + Instant.ofEpochMilli(held.values().stream().max(Long::compare).orElse(0L))
                    + "; force to remove it anyway");
        }
        removeObject(object);
        return RemoveResponse.getDefaultInstance();
    }

    private void removeObject(ObjectMeta object) throws StoreException {
        db.delete(objectKey(object.getKey()));
        release(object);
        leases.remove(object.getKey());
        lastAccess.remove(object.getKey());
        objectCount--;
    }

    @Override
    public synchronized ListResponse list(ListRequest request) throws StoreException {
        int limit = request.getLimit() <= 0 ? DEFAULT_LIST_LIMIT : Math.min(request.getLimit(), MAX_LIST_LIMIT);
        ListResponse.Builder response = ListResponse.newBuilder();
        String startAfter = request.getStartAfter().isEmpty() ? "" : objectKey(request.getStartAfter());
        db.scan(MasterDb.OBJECT + request.getPrefix(), startAfter, limit + 1, ObjectMeta.parser(), (k, object) -> {
            if (response.getObjectsCount() < limit) {
                response.addObjects(object);
            } else {
                response.setNextStartAfter(response.getObjects(limit - 1).getKey());
            }
        });
        return response.build();
    }

    @Override
    public synchronized SetPinnedResponse setPinned(SetPinnedRequest request) throws StoreException {
        ObjectMeta object = sealed(request.getKey());
        db.put(objectKey(object.getKey()), object.toBuilder().setPinned(request.getPinned()).build());
        return SetPinnedResponse.getDefaultInstance();
    }

    // ---- locks

    @Override
    public synchronized LockResponse tryLock(LockRequest request) throws StoreException {
        requireLockArguments(request);
        LockRecord current = db.get(MasterDb.LOCK + request.getName(), LockRecord.parser());
        long now = clock.getAsLong();
        if (current != null && current.getExpiresMs() >= now && !current.getOwner().equals(request.getOwner())) {
            return LockResponse.newBuilder().setHeld(false).setOwner(current.getOwner()).setExpiresMs(current.getExpiresMs()).build();
        }
        return grant(request, now);
    }

    @Override
    public synchronized LockResponse renewLock(LockRequest request) throws StoreException {
        requireLockArguments(request);
        LockRecord current = db.get(MasterDb.LOCK + request.getName(), LockRecord.parser());
        long now = clock.getAsLong();
        if (current == null || !current.getOwner().equals(request.getOwner())) {
            throw new StoreException(FAILED_PRECONDITION, "lock " + request.getName() + " is not held by " + request.getOwner()
                    + (current == null ? "" : "; it is held by " + current.getOwner()));
        }
        return grant(request, now);
    }

    @Override
    public synchronized LockResponse releaseLock(LockRequest request) throws StoreException {
        LockRecord current = db.get(MasterDb.LOCK + request.getName(), LockRecord.parser());
        if (current != null && current.getOwner().equals(request.getOwner())) {
            db.delete(MasterDb.LOCK + request.getName());
        }
        return LockResponse.newBuilder().setHeld(false).build();
    }

    private LockResponse grant(LockRequest request, long now) throws StoreException {
        long expires = now + request.getTtlMs();
        db.put(MasterDb.LOCK + request.getName(), LockRecord.newBuilder().setOwner(request.getOwner()).setExpiresMs(expires).build());
        return LockResponse.newBuilder().setHeld(true).setOwner(request.getOwner()).setExpiresMs(expires).build();
    }

    private static void requireLockArguments(LockRequest request) throws StoreException {
        if (request.getName().isEmpty() || request.getOwner().isEmpty() || request.getTtlMs() <= 0) {
            throw new StoreException(INVALID_ARGUMENT, "a lock needs a name, an owner and a ttl > 0: name="
                    + request.getName() + " owner=" + request.getOwner() + " ttlMs=" + request.getTtlMs());
        }
    }

    // ---- status

    @Override
    public synchronized StatusResponse status(StatusRequest request) {
        StatusResponse.Builder response = StatusResponse.newBuilder().setObjects(objectCount).setPendingPuts(pending.size());
        nodes.values().forEach(node -> response.addNodes(withLiveness(node)));
        return response.build();
    }

    private ObjectMeta sealed(String key) throws StoreException {
        ObjectKeys.validate(key);
        ObjectMeta object = db.get(objectKey(key), ObjectMeta.parser());
        if (object == null) {
            throw new StoreException(NOT_FOUND, "no object " + key);
        }
        return object;
    }

    private static String objectKey(String key) {
        return MasterDb.OBJECT + key;
    }

    @Override
    public synchronized void close() {
        reaper.shutdownNow();
        db.close();
    }
}
