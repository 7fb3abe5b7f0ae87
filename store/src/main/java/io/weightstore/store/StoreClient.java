package io.weightstore.store;

import io.weightstore.store.dataplane.BlockCheck;
import io.weightstore.store.grpc.GrpcMasterApi;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.proto.GetReplicasRequest;
import io.weightstore.store.proto.GetReplicasResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.LockResponse;
import io.weightstore.store.proto.NodeInfo;
import io.weightstore.store.proto.ObjectMeta;
import io.weightstore.store.proto.PutAbortRequest;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.Replica;
import io.weightstore.store.proto.SetPinnedRequest;
import io.weightstore.store.proto.Slice;
import io.weightstore.store.proto.SliceChecksums;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatusRequest;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's Java API. Metadata goes to the master; bytes move straight between this process and
 * the nodes, many slices at once over parallel connections, or by memory copy from a node's pool
 * file when it is on this host. Every read is checked against the slices' checksums and moves to
 * another replica when a node is down or a block is corrupt. Thread-safe.
 */
public final class StoreClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StoreClient.class);
    private static final long LEASE_REFRESH_MARGIN_MS = 5_000;
    private static final long SUSPECT_MS = 5_000;
    private static final long STREAM_ALIGNMENT = 64;
    /** Never started; asks whether a segment may be used from threads other than its owner. */
    private static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() -> {});

    /** Where an object's slices are, under a read lease. */
    private record Location(ObjectMeta object, Map<String, NodeInfo> nodes, long leaseId, long expiresMs) {}

    private final MasterApi master;
    private final ClientOptions options;
    private final List<AutoCloseable> owned;
    private final ExecutorService workers;
    private final Map<String, NodeAccess> access = new ConcurrentHashMap<>();
    private final Map<String, Location> locations = new ConcurrentHashMap<>();
    private final Map<String, Long> suspectUntil = new ConcurrentHashMap<>();
    private final Map<String, Optional<PoolFile>> localPools = new ConcurrentHashMap<>();
    private final LongAdder bytesRead = new LongAdder();
    private volatile boolean closed;

    StoreClient(MasterApi master, ClientOptions options, List<AutoCloseable> owned) {
        this.master = master;
        this.options = options;
        this.owned = List.copyOf(owned);
        this.workers = Executors.newFixedThreadPool(options.connections(),
                Thread.ofPlatform().daemon().name("store-io-", 0).factory());
    }

    /** A client of the cluster whose master listens at {@code hostPort}. */
    public static StoreClient connect(String hostPort, ClientOptions options) {
        return new StoreClient(GrpcMasterApi.connect(hostPort, options.token()), options, List.of());
    }

    /** A client of a master running in this process; closing the client closes it and then {@code owned}. */
    public static StoreClient inProcess(MasterApi master, ClientOptions options, AutoCloseable... owned) {
        return new StoreClient(master, options, List.of(owned));
    }

    public ClientOptions options() {
        return options;
    }

    // ---- writes

    /** Writes a local file as one object; the file is mapped, not read onto the heap. */
    public ObjectInfo put(String key, Path file, PutOptions put) throws IOException {
        return put(key, file, put, bytes -> {});
    }

    /** As {@link #put(String, Path, PutOptions)}, telling {@code progress} the bytes written so far after each slice. */
    public ObjectInfo put(String key, Path file, PutOptions put, LongConsumer progress) throws IOException {
        try (Arena arena = Arena.ofShared(); FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            MemorySegment data = size == 0 ? MemorySegment.NULL : channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            return put(key, data, put, progress);
        }
    }

    /** Writes a small object from the heap, such as a manifest. */
    public ObjectInfo put(String key, byte[] bytes, PutOptions put) throws IOException {
        return put(key, MemorySegment.ofArray(bytes), put);
    }

    /** Reads a whole small object onto the heap, such as a manifest; large objects belong in off-heap memory. */
    public byte[] readAll(String key) throws IOException {
        long size = location(key).object().getSize();
        if (size > Integer.MAX_VALUE - 8) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, key + " has " + size + " bytes, too many for the heap");
        }
        byte[] bytes = new byte[(int) size];
        readInto(key, List.of(new Range(0, size)), MemorySegment.ofArray(bytes));
        return bytes;
    }

    /** Writes {@code data} as one object: slices go to their nodes in parallel, each to all its replicas. */
    public ObjectInfo put(String key, MemorySegment data, PutOptions put) throws IOException {
        return put(key, data, put, bytes -> {});
    }

    /** As {@link #put(String, MemorySegment, PutOptions)}, telling {@code progress} the bytes written so far after each slice. */
    public ObjectInfo put(String key, MemorySegment data, PutOptions put, LongConsumer progress)
            throws IOException {
        PutStartResponse start = putStart(key, data.byteSize(), put);
        AtomicLong written = new AtomicLong();
        try {
            ObjectMeta object = start.getObject();
            List<Future<SliceChecksums>> writes = new ArrayList<>();
            for (Slice slice : object.getSlicesList()) {
                writes.add(workers.submit(() -> {
                    SliceChecksums sums = writeSlice(start, slice, data.asSlice(slice.getOffset(), slice.getLength()));
                    progress.accept(written.addAndGet(slice.getLength()));
                    return sums;
                }));
            }
            List<SliceChecksums> checksums = new ArrayList<>();
            for (Future<SliceChecksums> write : writes) {
                checksums.add(Futures.await(write));
            }
            return seal(start, checksums);
        } catch (IOException | RuntimeException e) {
            abort(start, e);
            throw e;
        }
    }

    /**
     * Writes {@code size} bytes from a stream, one slice at a time through a single reused off-heap
     * buffer, so memory stays bounded whatever the object's size.
     */
    public ObjectInfo put(String key, InputStream in, long size, PutOptions put) throws IOException {
        PutStartResponse start = putStart(key, size, put);
        try (Arena arena = Arena.ofConfined()) {
            ObjectMeta object = start.getObject();
            MemorySegment buffer = arena.allocate(Math.max(1, Math.min(size, object.getSliceSize())), STREAM_ALIGNMENT);
            byte[] chunk = new byte[64 << 10];
            List<SliceChecksums> checksums = new ArrayList<>();
            for (Slice slice : object.getSlicesList()) {
                MemorySegment sliceData = buffer.asSlice(0, slice.getLength());
                for (long filled = 0; filled < slice.getLength(); ) {
                    int n = in.read(chunk, 0, (int) Math.min(chunk.length, slice.getLength() - filled));
                    if (n < 0) {
                        throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "stream for " + key + " ended at byte "
                                + (slice.getOffset() + filled) + ", expected " + size);
                    }
                    MemorySegment.copy(chunk, 0, sliceData, ValueLayout.JAVA_BYTE, filled, n);
                    filled += n;
                }
                checksums.add(writeSlice(start, slice, sliceData));
            }
            return seal(start, checksums);
        } catch (IOException | RuntimeException e) {
            abort(start, e);
            throw e;
        }
    }

    private PutStartResponse putStart(String key, long size, PutOptions put) throws StoreException {
        return master.putStart(PutStartRequest.newBuilder().setKey(key).setSize(size).setReplicas(put.replicas())
                .setSliceSize(put.sliceSize()).setReplace(put.replace()).setPin(put.pin()).build());
    }

    private SliceChecksums writeSlice(PutStartResponse start, Slice slice, MemorySegment data) throws IOException {
        int blockSize = start.getObject().getChecksumBlockSize();
        SliceChecksums.Builder sums = SliceChecksums.newBuilder();
        for (int crc : Checksums.blockCrcs(data, blockSize)) {
            sums.addBlockCrcs(crc);
        }
        for (Replica replica : slice.getReplicasList()) {
            NodeInfo node = start.getNodesList().stream().filter(n -> n.getNodeId().equals(replica.getNodeId())).findFirst()
                    .orElseThrow(() -> new StoreException(StoreException.Code.PROTOCOL, "master placed a replica on unknown node "
                            + replica.getNodeId()));
            try {
                access(node).write(replica.getOffset(), data);
            } catch (IOException e) {
                throw new StoreException(e instanceof StoreException s ? s.code() : StoreException.Code.UNAVAILABLE,
                        "writing slice at " + slice.getOffset() + " of " + start.getObject().getKey() + " to node "
                                + node.getNodeId() + " failed: " + e.getMessage(), e);
            }
        }
        return sums.build();
    }

    private ObjectInfo seal(PutStartResponse start, List<SliceChecksums> checksums) throws StoreException {
        ObjectInfo sealed = ObjectInfo.of(master.putEnd(PutEndRequest.newBuilder().setPutId(start.getPutId())
                .addAllChecksums(checksums).build()).getObject());
        // A replaced object lives elsewhere now: forget where the old one was.
        Location stale = locations.remove(sealed.key());
        if (stale != null) {
            releaseLease(sealed.key(), stale);
        }
        return sealed;
    }

    private void abort(PutStartResponse start, Exception cause) {
        try {
            master.putAbort(PutAbortRequest.newBuilder().setPutId(start.getPutId()).build());
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }

    // ---- reads

    public ObjectInfo stat(String key) throws StoreException {
        return ObjectInfo.of(master.stat(StatRequest.newBuilder().setKey(key).build()).getObject());
    }

    /** The sealed object of this key, or empty when there is none. */
    public Optional<ObjectInfo> find(String key) throws StoreException {
        try {
            return Optional.of(stat(key));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Where each slice's replicas are and whether their nodes are up, under a fresh read lease. */
    public List<NodeStatus> replicaNodes(String key) throws StoreException {
        return location(key).nodes().values().stream().map(NodeStatus::of).toList();
    }

    /**
     * Reads {@code ranges} of the object into {@code dst}, packed one after another in order.
     *
     * @throws StoreException INVALID_ARGUMENT for a range outside the object or a destination too small;
     *     CORRUPT or UNAVAILABLE, naming the key and slice, when no replica of a slice could serve it
     */
    public void readInto(String key, List<Range> ranges, MemorySegment dst) throws IOException {
        read(List.of(new Read.Ranges(key, ranges, dst)));
    }

    /**
     * Reads {@code count} rows of {@code blockLength} bytes, {@code stride} apart from {@code offset},
     * packed into {@code dst}: one column shard of a row-major matrix, without reading the other columns.
     */
    public void readStrided(String key, long offset, long blockLength, long stride, int count, MemorySegment dst)
            throws IOException {
        read(List.of(new Read.Strided(key, offset, blockLength, stride, count, dst)));
    }

    /**
     * Performs several reads, of any objects, as one scatter-gather operation: every piece of every
     * read is spread over the connections and nodes at once, so many small reads (one column shard
     * per tensor, say) go as fast as one large one. All reads are checked before any byte moves.
     */
    public void read(List<Read> reads) throws IOException {
        List<Job> jobs = new ArrayList<>();
        for (Read read : reads) {
            ObjectMeta object = location(read.key()).object();
            List<ReadTask> tasks = switch (read) {
                case Read.Ranges r -> plan(r, object);
                case Read.Strided r -> plan(r, object);
            };
            tasks.forEach(task -> jobs.add(new Job(read.key(), task, read.dst())));
        }
        execute(jobs);
    }

    /** One task of one read, with where its bytes go. */
    private record Job(String key, ReadTask task, MemorySegment dst) {}

    private List<ReadTask> plan(Read.Ranges read, ObjectMeta object) throws StoreException {
        long total = 0;
        for (Range range : read.ranges()) {
            if (range.end() > object.getSize() || range.end() < range.offset()) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "range offset=" + range.offset() + " length="
                        + range.length() + " is outside " + read.key() + " of " + object.getSize() + " bytes");
            }
            total += range.length();
        }
        requireRoom(read.key(), read.dst(), total);
        return ReadPlanner.ranges(object, read.ranges(), options.maxPieceBytes());
    }

    private List<ReadTask> plan(Read.Strided read, ObjectMeta object) throws StoreException {
        if (read.offset() < 0 || read.blockLength() < 0 || read.stride() < read.blockLength() || read.count() < 0) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "strided read of " + read.key()
                    + " needs offset >= 0, 0 <= blockLength <= stride, count >= 0: offset=" + read.offset() + " blockLength="
                    + read.blockLength() + " stride=" + read.stride() + " count=" + read.count());
        }
        long end = read.offset() + (read.count() - 1L) * read.stride() + read.blockLength();
        if (read.count() > 0 && end > object.getSize()) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "strided read of " + read.key() + " ends at " + end
                    + ", past its " + object.getSize() + " bytes");
        }
        requireRoom(read.key(), read.dst(), read.blockLength() * read.count());
        return ReadPlanner.strided(object, read.offset(), read.blockLength(), read.stride(), read.count(), options.maxPieceBytes());
    }

    private static void requireRoom(String key, MemorySegment dst, long bytes) throws StoreException {
        if (dst.byteSize() < bytes) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "destination of " + dst.byteSize()
                    + " bytes is too small for " + bytes + " bytes of " + key);
        }
    }

    private void execute(List<Job> jobs) throws IOException {
        // A destination from a confined arena may only be touched by its owner: serve it piece by piece here.
        if (jobs.size() == 1 || jobs.stream().anyMatch(job -> !job.dst().isAccessibleBy(NOT_THE_OWNER))) {
            for (Job job : jobs) {
                runTask(job.key(), job.task(), job.dst());
            }
            return;
        }
        // On the first failure the jobs not yet started are skipped; all are awaited, so none writes into dst after return.
        AtomicBoolean failed = new AtomicBoolean();
        List<Future<Void>> running = new ArrayList<>(jobs.size());
        for (Job job : jobs) {
            running.add(workers.submit(() -> {
                if (!failed.get()) {
                    try {
                        runTask(job.key(), job.task(), job.dst());
                    } catch (IOException | RuntimeException e) {
                        failed.set(true);
                        throw e;
                    }
                }
                return null;
            }));
        }
        IOException failure = null;
        for (Future<Void> future : running) {
            try {
                Futures.await(future);
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void runTask(String key, ReadTask task, MemorySegment dst) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Location location = location(key);
            try {
                readFromReplicas(location, task, dst);
                bytesRead.add(task.bytes());
                return;
            } catch (StoreException e) {
                // Every replica failed. A node may have come back on another port: look again once.
                if (attempt > 0 || e.code() != StoreException.Code.UNAVAILABLE) {
                    throw e;
                }
                locations.remove(key, location);
            }
        }
    }

    private void readFromReplicas(Location location, ReadTask task, MemorySegment dst) throws IOException {
        ObjectMeta object = location.object();
        Slice slice = object.getSlices(task.slice());
        List<String> errors = new ArrayList<>();
        boolean allCorrupt = true;
        for (Replica replica : orderReplicas(location, slice, task.slice())) {
            NodeInfo node = location.nodes().get(replica.getNodeId());
            if (node == null) {
                errors.add(replica.getNodeId() + ": unknown node");
                allCorrupt = false;
                continue;
            }
            try {
                task.run(access(node), replica.getOffset(),
                        ReadTask.checks(task, slice, object.getChecksumBlockSize(), replica.getOffset()), dst);
                return;
            } catch (StoreException e) {
                if (e.code() == StoreException.Code.INVALID_ARGUMENT) {
                    throw e;
                }
                allCorrupt &= e.code() == StoreException.Code.CORRUPT;
                errors.add(node.getNodeId() + ": " + e.getMessage());
                log.warn("slice {} of {} failed on node {}: {}", task.slice(), object.getKey(), node.getNodeId(), e.getMessage());
            } catch (IOException e) {
                allCorrupt = false;
                suspectUntil.put(node.getNodeId(), System.currentTimeMillis() + SUSPECT_MS);
                errors.add(node.getNodeId() + ": " + e.getMessage());
                log.warn("slice {} of {} unreachable on node {}: {}", task.slice(), object.getKey(), node.getNodeId(), e.getMessage());
            }
        }
        throw new StoreException(allCorrupt && !errors.isEmpty() ? StoreException.Code.CORRUPT : StoreException.Code.UNAVAILABLE,
                "no replica could serve slice " + task.slice() + " (bytes " + slice.getOffset() + ".."
                        + (slice.getOffset() + slice.getLength()) + ") of " + object.getKey() + ": " + String.join("; ", errors));
    }

    /** Local pools first, then nodes that are up (rotated by slice to spread load), then the rest as a last resort. */
    private List<Replica> orderReplicas(Location location, Slice slice, int sliceIndex) {
        List<Replica> replicas = new ArrayList<>(slice.getReplicasList());
        if (replicas.size() > 1) {
            Collections.rotate(replicas, -(sliceIndex % replicas.size()));
        }
        long now = System.currentTimeMillis();
        replicas.sort(Comparator.comparingInt(r -> {
            NodeInfo node = location.nodes().get(r.getNodeId());
            if (node == null) {
                return 3;
            }
            if (localPool(node) != null) {
                return 0;
            }
            boolean suspect = suspectUntil.getOrDefault(node.getNodeId(), 0L) > now;
            return node.getUp() && !suspect ? 1 : 2;
        }));
        return replicas;
    }

    private Location location(String key) throws StoreException {
        ensureOpen();
        Location cached = locations.get(key);
        long now = System.currentTimeMillis();
        if (cached != null && cached.expiresMs() - now > LEASE_REFRESH_MARGIN_MS) {
            return cached;
        }
        GetReplicasResponse response = master.getReplicas(GetReplicasRequest.newBuilder().setKey(key).build());
        Map<String, NodeInfo> nodes = new HashMap<>();
        response.getNodesList().forEach(n -> nodes.put(n.getNodeId(), n));
        Location fresh = new Location(response.getObject(), nodes, response.getLeaseId(), response.getLeaseExpiresMs());
        Location previous = locations.put(key, fresh);
        if (previous != null) {
            releaseLease(key, previous);
        }
        return fresh;
    }

    private void releaseLease(String key, Location location) {
        try {
            master.releaseLease(ReleaseLeaseRequest.newBuilder().setKey(key).setLeaseId(location.leaseId()).build());
        } catch (StoreException e) {
            log.debug("could not release lease on {}: {}", key, e.getMessage());
        }
    }

    /**
     * Object bytes this client has read so far: exactly the bytes asked for, since partly wanted
     * checksum blocks are checked where they lie instead of being shipped whole.
     */
    public long bytesRead() {
        return bytesRead.sum();
    }

    /** Ends this client's read leases, so the objects can be removed without force. */
    public void releaseLeases() {
        for (Map.Entry<String, Location> entry : List.copyOf(locations.entrySet())) {
            if (locations.remove(entry.getKey(), entry.getValue())) {
                releaseLease(entry.getKey(), entry.getValue());
            }
        }
    }

    private NodeAccess access(NodeInfo node) {
        String id = node.getNodeId() + "@" + node.getHost() + ":" + node.getPort() + "/" + node.getPoolUuid();
        return access.computeIfAbsent(id, k -> {
            PoolFile pool = localPool(node);
            if (pool != null) {
                return new MappedNodeAccess(pool);
            }
            if (node.getPort() == 0) {
                throw new IllegalStateException("node " + node.getNodeId() + " is in-process elsewhere; its pool "
                        + node.getPoolPath() + " is not visible here");
            }
            return new SocketNodeAccess(node.getHost(), node.getPort(), options.token());
        });
    }

    /** The node's pool file mapped here, when this host sees it and its identity matches; else null. */
    private PoolFile localPool(NodeInfo node) {
        if (!options.sameHostPath() && node.getPort() != 0) {
            return null;
        }
        return localPools.computeIfAbsent(node.getPoolUuid(), uuid -> {
            Path path = Path.of(node.getPoolPath());
            if (node.getPoolPath().isEmpty() || !Files.isReadable(path)) {
                return Optional.empty();
            }
            try {
                PoolFile pool = PoolFile.open(path, Files.isWritable(path));
                if (pool.uuid().equals(UUID.fromString(uuid))) {
                    return Optional.of(pool);
                }
                pool.close();
            } catch (StoreException | IllegalArgumentException e) {
                log.debug("pool {} of node {} not usable locally: {}", path, node.getNodeId(), e.getMessage());
            }
            return Optional.empty();
        }).orElse(null);
    }

    // ---- listing, removal, pins, locks, status

    /** Every sealed object whose key starts with {@code prefix}, in key order. */
    public List<ObjectInfo> list(String prefix) throws StoreException {
        List<ObjectInfo> all = new ArrayList<>();
        String after = "";
        do {
            ListResponse page = master.list(ListRequest.newBuilder().setPrefix(prefix).setStartAfter(after).build());
            page.getObjectsList().forEach(o -> all.add(ObjectInfo.of(o)));
            after = page.getNextStartAfter();
        } while (!after.isEmpty());
        return all;
    }

    public void remove(String key, boolean force) throws StoreException {
        Location location = locations.remove(key);
        if (location != null) {
            releaseLease(key, location);
        }
        master.remove(RemoveRequest.newBuilder().setKey(key).setForce(force).build());
    }

    public void setPinned(String key, boolean pinned) throws StoreException {
        master.setPinned(SetPinnedRequest.newBuilder().setKey(key).setPinned(pinned).build());
    }

    /** The state of a named lock after a lock call. */
    public record LockState(boolean held, String owner, long expiresMs) {
        static LockState of(LockResponse response) {
            return new LockState(response.getHeld(), response.getOwner(), response.getExpiresMs());
        }
    }

    public LockState tryLock(String name, String owner, long ttlMs) throws StoreException {
        return LockState.of(master.tryLock(lock(name, owner, ttlMs)));
    }

    public LockState renewLock(String name, String owner, long ttlMs) throws StoreException {
        return LockState.of(master.renewLock(lock(name, owner, ttlMs)));
    }

    public void releaseLock(String name, String owner) throws StoreException {
        master.releaseLock(lock(name, owner, 0));
    }

    private static LockRequest lock(String name, String owner, long ttlMs) {
        return LockRequest.newBuilder().setName(name).setOwner(owner).setTtlMs(ttlMs).build();
    }

    public StoreStatus status() throws StoreException {
        var response = master.status(StatusRequest.getDefaultInstance());
        return new StoreStatus(response.getNodesList().stream().map(NodeStatus::of).toList(), response.getObjects(),
                response.getPendingPuts());
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store client is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        releaseLeases();
        closed = true;
        workers.shutdownNow();
        access.values().forEach(NodeAccess::close);
        localPools.values().forEach(p -> p.ifPresent(pool -> {
            try {
                pool.close();
            } catch (StoreException e) {
                log.debug("closing pool {}: {}", pool.path(), e.getMessage());
            }
        }));
        master.close();
        for (AutoCloseable resource : owned.reversed()) {
            try {
                resource.close();
            } catch (Exception e) {
                log.warn("closing {}: {}", resource, e.getMessage());
            }
        }
    }
}
