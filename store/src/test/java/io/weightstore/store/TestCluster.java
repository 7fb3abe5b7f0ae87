package io.weightstore.store;

import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A real cluster on loopback: one master (gRPC, RocksDB) and N storage nodes (data plane, pool
 * files), all on ephemeral ports, in temporary directories. Nodes and the master can be stopped
 * and restarted on the same state.
 */
public final class TestCluster implements AutoCloseable {
    public static final long SLICE = 1 << 20;
    public static final int CHECKSUM_BLOCK = 64 << 10;
    public static final long NODE_CAPACITY = 64L << 20;
    /** Where a pool file keeps its data: the header before it is 4 KiB. */
    private static final long POOL_DATA_START = 4096;

    public static MasterConfig config() {
        return new MasterConfig(SLICE, CHECKSUM_BLOCK, Duration.ofMillis(200), Duration.ofSeconds(2), Duration.ofSeconds(30),
                Duration.ofMinutes(10), 0.95);
    }

    private final Path dir;
    private final MasterConfig config;
    private MasterServer master;
    private int masterPort;
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<Path> pools = new ArrayList<>();
    private final List<StoreClient> clients = new ArrayList<>();

    public TestCluster(Path dir, int nodeCount) throws StoreException {
        this(dir, nodeCount, config());
    }

    public TestCluster(Path dir, int nodeCount, MasterConfig config) throws StoreException {
        this.dir = dir;
        this.config = config;
        master = MasterServer.start(dir.resolve("master"), config, "127.0.0.1", 0, "");
        masterPort = master.port();
        for (int i = 0; i < nodeCount; i++) {
            pools.add(dir.resolve("node" + i + ".pool"));
            nodes.add(startNode(i));
        }
    }

    private StorageNode startNode(int index) throws StoreException {
        return StorageNode.start(masterAddress(), NodeOptions.loopback(pools.get(index), NODE_CAPACITY));
    }

    public String masterAddress() {
        return "127.0.0.1:" + masterPort;
    }

    public int masterPort() {
        return masterPort;
    }

    /** A client that reads over the nodes' sockets, never by mapping their pools. */
    public StoreClient client() throws StoreException {
        return client(ClientOptions.defaults().withSameHostPath(false));
    }

    public StoreClient client(ClientOptions options) throws StoreException {
        StoreClient client = StoreClient.connect(masterAddress(), options);
        clients.add(client);
        return client;
    }

    public StorageNode node(int index) {
        return nodes.get(index);
    }

    public Path pool(int index) {
        return pools.get(index);
    }

    public int indexOf(String nodeId) {
        for (int i = 0; i < nodes.size(); i++) {
            if (nodes.get(i).nodeId().equals(nodeId)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no node " + nodeId);
    }

    /**
     * Flips one byte of the first replica of slice {@code slice} of {@code key}, {@code offset} bytes into
     * the slice, in that node's pool file: rot that only the checksums can notice.
     */
    public void flipByte(String key, int slice, long offset) throws IOException {
        flipByte(key, slice, 0, offset);
    }

    /** As {@link #flipByte(String, int, long)}, in the slice's replica number {@code replicaIndex}. */
    public void flipByte(String key, int slice, int replicaIndex, long offset) throws IOException {
        ReplicaRef replica;
        try (StoreClient client = StoreClient.connect(masterAddress(), ClientOptions.defaults());
                ObjectReader object = client.open(key)) {
            replica = object.object().slice(slice).replicas().get(replicaIndex);
        }
        try (FileChannel pool = FileChannel.open(pool(indexOf(replica.nodeId())), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long position = POOL_DATA_START + replica.offset() + offset;
            ByteBuffer b = ByteBuffer.allocate(1);
            pool.read(b, position);
            pool.write(ByteBuffer.wrap(new byte[] {(byte) ~b.get(0)}), position);
        }
    }

    public void stopNode(int index) throws StoreException {
        nodes.get(index).close();
    }

    /** Starts the node again on the same pool file (and so the same identity), on a new port. */
    public void restartNode(int index) throws StoreException {
        nodes.set(index, startNode(index));
    }

    /**
     * Stops node {@code index}, deletes its pool file and starts it again on an empty one: a node
     * that comes back without its data, which makes it a new node with a new id. Returns the old id
     * once the master counts it down.
     */
    public String restartNodeWithoutItsPool(int index) throws IOException, InterruptedException {
        String old = nodes.get(index).nodeId();
        stopNode(index);
        java.nio.file.Files.delete(pool(index));
        restartNode(index);
        awaitDown(old);
        return old;
    }

    /** Waits until the master counts {@code nodeId} down (it stopped heartbeating a deadline ago). */
    public void awaitDown(String nodeId) throws StoreException, InterruptedException {
        try (StoreClient client = StoreClient.connect(masterAddress(), ClientOptions.defaults())) {
            long deadline = System.currentTimeMillis() + config.nodeDeadline().toMillis() + 10_000;
            while (client.status().nodes().stream().anyMatch(n -> n.nodeId().equals(nodeId) && n.up())) {
                if (System.currentTimeMillis() > deadline) {
                    throw new AssertionError("node " + nodeId + " still up " + config.nodeDeadline() + " after it stopped");
                }
                Thread.sleep(50);
            }
        }
    }

    public void stopMaster() {
        master.close();
    }

    public void startMaster() throws StoreException {
        master = MasterServer.start(dir.resolve("master"), config, "127.0.0.1", masterPort, "");
    }

    @Override
    public void close() throws Exception {
        for (StoreClient client : clients) {
            client.close();
        }
        for (StorageNode node : nodes) {
            node.close();
        }
        master.close();
    }
}
