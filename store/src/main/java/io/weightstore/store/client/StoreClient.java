package io.weightstore.store.client;

import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PositionalSource;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.grpc.MasterClients;
import io.weightstore.store.metrics.ClientMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's Java API. Metadata goes to the master; bytes move straight between this process and
 * the nodes, many slices at once over parallel connections, or by memory copy from a node's pool
 * file when it is on this host. Reads go through {@link ObjectReader} handles, each holding a read
 * lease until it is closed; every read is checked against the slices' checksums and moves to
 * another replica when a node is down or a block is corrupt. Thread-safe.
 */
public final class StoreClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StoreClient.class);

    private final MasterApi master;
    private final ClientOptions options;
    private final List<AutoCloseable> owned;
    private final ExecutorService workers;
    private final NodeConnections connections;
    private final LeaseKeeper leases;
    private final SliceWriter writer;
    private final ReplicaReader reader;
    private final ReplicaChecker checker;
    private final ReplicaRepairer repairer;
    private final ClientMetrics metrics = new ClientMetrics();
    private final LocalMapper mapper;
    private volatile boolean closed;

    private StoreClient(MasterApi master, ClientOptions options, List<AutoCloseable> owned) {
        this.master = master;
        this.options = options;
        this.owned = List.copyOf(owned);
        this.workers = Executors.newFixedThreadPool(options.connections(), Thread.ofPlatform().daemon().name("store-io-", 0).factory());
        this.connections = new NodeConnections(options);
        this.leases = new LeaseKeeper(master, options.leaseDuration());
        this.writer = new SliceWriter(master, workers, connections);
        this.reader = new ReplicaReader(workers, connections, options.maxPieceBytes(), options.deadlines(), metrics);
        metrics.watch(reader::bytesRead);
        this.checker = new ReplicaChecker(workers, connections);
        this.repairer = new ReplicaRepairer(master, connections, options.maxPieceBytes());
        this.mapper = new LocalMapper(workers, connections);
    }

    /** A client of the cluster whose master listens at {@code address} (HOST:PORT), or whose group of masters listens at HOST:PORT,HOST:PORT,... */
    public static StoreClient connect(String address, ClientOptions options) throws StoreException {
        return new StoreClient(MasterClients.connect(address, options.authentication()), options, List.of());
    }

    /** A client of a master running in this process; closing the client closes it and then {@code owned}. */
    public static StoreClient over(MasterApi master, ClientOptions options, AutoCloseable... owned) {
        return new StoreClient(master, options, List.of(owned));
    }

    public ClientOptions options() {
        return options;
    }

    // ---- writes

    /** Writes a local file as one object, read a piece at a time into off-heap buffers (see the next method). */
    public ObjectMeta put(String key, Path file, PutOptions put, Progress progress) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return put(key, channel, channel.size(), put, progress);
        }
    }

    /**
     * Writes the first {@code size} bytes of {@code source} as one object: slices go to their nodes in
     * parallel, each read a few MiB at a time into a buffer of its own, never mapped; a file shorter than
     * {@code size} fails the put (INVALID_ARGUMENT) and leaves nothing. A put cancelled by an interrupt
     * may close {@code source}: an interrupted read closes its channel.
     */
    public ObjectMeta put(String key, FileChannel source, long size, PutOptions put, Progress progress) throws IOException {
        ensureOpen();
        progress.started(size);
        return writer.put(key, source, size, put, progress);
    }

    /**
     * Writes {@code size} bytes of {@code source} as one object, as a file's put does: slices go to their nodes in
     * parallel, each read a few MiB at a time into a buffer of its own.
     */
    public ObjectMeta put(String key, PositionalSource source, long size, PutOptions put, Progress progress) throws IOException {
        ensureOpen();
        progress.started(size);
        return writer.put(key, source, size, put, progress);
    }

    /** Writes {@code data} as one object: slices go to their nodes in parallel, each to all its replicas. */
    public ObjectMeta put(String key, MemorySegment data, PutOptions put, Progress progress) throws IOException {
        ensureOpen();
        progress.started(data.byteSize());
        return writer.put(key, data, put, progress);
    }

    public ObjectMeta put(String key, MemorySegment data, PutOptions put) throws IOException {
        return put(key, data, put, Progress.NONE);
    }

    /** Writes a small object from the heap, such as a manifest. */
    public ObjectMeta put(String key, byte[] bytes, PutOptions put) throws IOException {
        return put(key, MemorySegment.ofArray(bytes), put);
    }

    /** Writes {@code size} bytes from a stream through one reused off-heap buffer, so memory stays bounded. */
    public ObjectMeta put(String key, InputStream in, long size, PutOptions put, Progress progress) throws IOException {
        ensureOpen();
        progress.started(size);
        return writer.put(key, in, size, put, progress);
    }

    // ---- reads

    /** Opens an object for reading, under a read lease held until the reader is closed. */
    public ObjectReader open(String key) throws StoreException {
        ensureOpen();
        return ObjectReader.open(this, key);
    }

    /**
     * Opens each of {@code keys}, in their order, as {@link #open} does, all or nothing, with a call to
     * the master per 64 keys rather than one per key (end them together with {@link ObjectReader#closeAll}).
     */
    public List<ObjectReader> openAll(List<String> keys) throws StoreException {
        ensureOpen();
        return ObjectReader.openAll(this, keys);
    }

    /**
     * Performs several reads, of any open objects, as one scatter-gather operation: every piece of
     * every read is spread over the connections and nodes at once, so many small reads (one column
     * shard per tensor, say) go as fast as one large one. All reads are checked before any byte moves.
     *
     * @throws StoreException INVALID_ARGUMENT for a range outside its object or a destination too small;
     *     CORRUPT or UNAVAILABLE, naming the key and slice, when no replica of a slice could serve it
     */
    public void read(List<Read> reads) throws IOException {
        ensureOpen();
        reader.read(reads);
    }

    /** Reads a whole small object onto the heap, such as a manifest; large objects belong in off-heap memory. */
    public byte[] readAll(String key) throws IOException {
        try (ObjectReader object = open(key)) {
            if (object.size() > Integer.MAX_VALUE - 8) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, key + " has " + object.size()
                        + " bytes, too many for the heap");
            }
            byte[] bytes = new byte[(int) object.size()];
            object.read(new Range(0, bytes.length), MemorySegment.ofArray(bytes));
            return bytes;
        }
    }

    /**
     * Object bytes this client has read so far: exactly the bytes asked for, since partly wanted
     * checksum blocks are checked where they lie instead of being shipped whole.
     */
    public long bytesRead() {
        return reader.bytesRead();
    }

    /** This client's read counters, on a registry of its own, for the process that holds it to expose. */
    public ClientMetrics metrics() {
        return metrics;
    }

    // ---- metadata

    public ObjectMeta stat(String key) throws StoreException {
        return master.stat(key);
    }

    /** The sealed object of this key, or empty when there is none. */
    public Optional<ObjectMeta> find(String key) throws StoreException {
        try {
            return Optional.of(stat(key));
        } catch (StoreException e) {
            if (e.code() == StoreException.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Every sealed object whose key starts with {@code prefix}, in key order. */
    public List<ObjectMeta> list(String prefix) throws StoreException {
        List<ObjectMeta> all = new ArrayList<>();
        String after = "";
        while (true) {
            ListPage page = master.list(prefix, after, 0);
            all.addAll(page.objects());
            if (page.next().isEmpty()) {
                return all;
            }
            after = page.next().get();
        }
    }

    /** Gives up every pending put of {@code writer}, a writer known to be dead; returns how many. */
    public int abortPutsOf(String writer) throws StoreException {
        return master.abortPutsOf(writer);
    }

    /**
     * Removes the objects of {@code keys} all or nothing: refused, with nothing removed, while readers
     * hold a lease on any (unless {@code force}); keys with no object are passed over.
     */
    public int removeAll(List<String> keys, boolean force) throws StoreException {
        return master.removeAll(keys, force);
    }

    /** As {@link #removeAll(List, boolean)}, refused unless {@code writer} holds {@code lock} (see {@link MasterApi#removeAll}). */
    public int removeAllUnderLock(List<String> keys, boolean force, String writer, String lock) throws StoreException {
        return master.removeAll(keys, force, writer, lock);
    }

    /** Space on the nodes that are up, and how much eviction could free. */
    public Room room() throws StoreException {
        return master.room();
    }

    /** Removes an object; refused while readers hold leases on it unless {@code force}. */
    public void remove(String key, boolean force) throws StoreException {
        master.remove(key, force);
    }

    public LockState tryLock(String name, String owner, Duration ttl) throws StoreException {
        return master.tryLock(name, owner, ttl);
    }

    public LockState renewLock(String name, String owner, Duration ttl) throws StoreException {
        return master.renewLock(name, owner, ttl);
    }

    public void releaseLock(String name, String owner) throws StoreException {
        master.releaseLock(name, owner);
    }

    public StoreStatus status() throws StoreException {
        return master.status();
    }

    /** See {@link MasterApi#statusWithEveryMaster()}. */
    public StoreStatus statusWithEveryMaster() throws StoreException {
        return master.statusWithEveryMaster();
    }

    /**
     * Drops a node that is gone for good, with every replica it held; refused while it holds the
     * only copy of a slice, and while it is up unless {@code force}.
     */
    public NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException {
        return master.forgetNode(nodeId, force);
    }

    /**
     * Sets how many copies of each slice the master keeps of the objects of {@code keys}, online:
     * nodes copy slices to one another up to it, and copies beyond it are dropped. With {@code auto},
     * the count is a floor the master raises while many readers hold an object. Returns how many
     * objects changed; the copies follow in the background ({@link #status()} shows them).
     */
    public int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException {
        return master.setReplicas(keys, replicas, auto);
    }

    /** Starts (or with {@code cancel} stops) moving every replica off a node, so that it can leave. */
    public NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException {
        return master.drainNode(nodeId, cancel);
    }

    /**
     * The node whose pool this process maps (a node on this host, when {@link ClientOptions#sameHostPath()}),
     * or empty when reads here go over sockets.
     */
    public Optional<NodeInfo> localNode() throws StoreException {
        for (NodeStatus node : master.status().nodes()) {
            if (node.up() && !node.endpoint().isInProcess() && connections.isLocal(node.info())) {
                return Optional.of(node.info());
            }
        }
        return Optional.empty();
    }

    /**
     * Has node {@code nodeId} keep a copy of every slice of the objects of {@code keys} on top of
     * their replica count, copied node to node in the background: the node on an engine's host, so its
     * next load maps its own memory. Returns how many objects changed.
     */
    public int keepLocalCopies(List<String> keys, String nodeId) throws StoreException {
        return master.keepLocalCopies(keys, nodeId);
    }

    // ---- for the client's own parts

    /** Takes a read lease on {@code key}, and keeps the session tickets that come with it. */
    Located locate(String key) throws StoreException {
        Located located = master.locate(key, options.leaseDuration());
        connections.admit(located.tickets());
        return located;
    }

    List<Located> locateAll(List<String> keys) throws StoreException {
        List<Located> located = master.locateAll(keys, options.leaseDuration());
        located.forEach(one -> connections.admit(one.tickets()));
        return located;
    }

    MasterApi master() {
        return master;
    }

    LeaseKeeper leases() {
        return leases;
    }

    ReplicaChecker checker() {
        return checker;
    }

    ReplicaRepairer repairer() {
        return repairer;
    }

    LocalMapper mapper() {
        return mapper;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("store client is closed");
        }
    }

    /** Ends every open reader's lease, stops the workers, and closes what the client owns. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        leases.close();
        // Tasks still queued never run: cancel them, so that whoever waits on one hears so instead of waiting for good.
        workers.shutdownNow().forEach(queued -> {
            if (queued instanceof Future<?> future) {
                future.cancel(false);
            }
        });
        connections.close();
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
