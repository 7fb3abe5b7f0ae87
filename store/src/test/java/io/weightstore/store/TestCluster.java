package io.weightstore.store;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.ObjectReader;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterCore;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TokenRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A real cluster on loopback: one master (gRPC, RocksDB) and N storage nodes (data plane, pool
 * files), all on ephemeral ports, in temporary directories. Nodes and the master can be stopped
 * and restarted on the same state. A secure cluster has its own CA: the master and each node
 * ({@code node-0} …) run with certificates, and clients get an admin's unless they bring their own.
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
    private final CertificateAuthority ca;
    private final UnaryOperator<NodeOptions> nodeOptions;
    private final DataPlaneProtection dataPlane;
    private MasterServer master;
    private int masterPort;
    private final List<StorageNode> nodes = new ArrayList<>();
    private final List<Path> pools = new ArrayList<>();
    private final List<StoreClient> clients = new ArrayList<>();

    public TestCluster(Path dir, int nodeCount) throws StoreException {
        this(dir, nodeCount, config());
    }

    public TestCluster(Path dir, int nodeCount, MasterConfig config) throws StoreException {
        this(dir, nodeCount, config, null, DataPlaneProtection.TLS, UnaryOperator.identity());
    }

    /** A cluster whose nodes run with what {@code nodeOptions} makes of the loopback defaults (a scrubber, say). */
    public TestCluster(Path dir, int nodeCount, MasterConfig config, UnaryOperator<NodeOptions> nodeOptions) throws StoreException {
        this(dir, nodeCount, config, null, DataPlaneProtection.TLS, nodeOptions);
    }

    private TestCluster(Path dir, int nodeCount, MasterConfig config, CertificateAuthority ca, DataPlaneProtection dataPlane,
            UnaryOperator<NodeOptions> nodeOptions)
            throws StoreException {
        this.dir = dir;
        this.config = config;
        this.ca = ca;
        this.nodeOptions = nodeOptions;
        this.dataPlane = dataPlane;
        masterPort = 0;
        startMaster();
        masterPort = master.port();
        for (int i = 0; i < nodeCount; i++) {
            pools.add(dir.resolve("node" + i + ".pool"));
            nodes.add(startNode(i));
        }
    }

    /** A cluster whose master and nodes accept only callers with credentials of its CA (in {@code dir/ca}). */
    public static TestCluster secure(Path dir, int nodeCount) throws StoreException {
        return secure(dir, nodeCount, DataPlaneProtection.TLS);
    }

    /** As {@link #secure(Path, int)}, with the nodes' data plane in {@code dataPlane} after each handshake. */
    public static TestCluster secure(Path dir, int nodeCount, DataPlaneProtection dataPlane) throws StoreException {
        return secure(dir, nodeCount, dataPlane, config(), UnaryOperator.identity());
    }

    /** As {@link #secure(Path, int, DataPlaneProtection)}, with a master of {@code config} and nodes as {@code nodeOptions} makes them. */
    public static TestCluster secure(Path dir, int nodeCount, DataPlaneProtection dataPlane, MasterConfig config,
            UnaryOperator<NodeOptions> nodeOptions) throws StoreException {
        return new TestCluster(dir, nodeCount, config, CertificateAuthority.init(dir.resolve("ca")), dataPlane, nodeOptions);
    }

    /** Credentials of this cluster's CA for {@code name} in {@code role}, issued on first use. */
    public Path credentials(Role role, String name) throws StoreException {
        if (ca == null) {
            throw new IllegalStateException("an insecure cluster has no CA");
        }
        Path credentials = dir.resolve("credentials").resolve(name);
        if (!Files.exists(credentials)) {
            ca.issue(role, name, credentials, Duration.ofDays(1), List.of("127.0.0.1"));
        }
        return credentials;
    }

    public Authentication authentication(Role role, String name) throws StoreException {
        return new Authentication.Certificate(Credentials.load(credentials(role, name)));
    }

    /** What this cluster's own maintenance uses: an admin's credentials on a secure cluster. */
    private ClientOptions adminOptions() throws StoreException {
        return ClientOptions.defaults().withAuthentication(ca == null ? Authentication.insecure() : authentication(Role.ADMIN, "admin"));
    }

    public CertificateAuthority ca() {
        return ca;
    }

    private StorageNode startNode(int index) throws StoreException {
        NodeOptions options = nodeOptions.apply(NodeOptions.loopback(pools.get(index), NODE_CAPACITY));
        if (ca != null) {
            options = options.withAuthentication(authentication(Role.NODE, "node-" + index)).withDataPlane(dataPlane);
        }
        return StorageNode.start(masterAddress(), options);
    }

    /** The master's core, for a test that calls it in this process, as the embedded store does. */
    public MasterCore masterCore() {
        return master.core();
    }

    /** The master's metrics: the calls it answered, by method. */
    public MasterMetrics masterMetrics() {
        return master.metrics();
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
        if (ca != null && options.authentication() instanceof Authentication.Insecure) {
            options = options.withAuthentication(authentication(Role.ADMIN, "admin"));
        }
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
        xorBytes(key, slice, replicaIndex, offset, new byte[] {(byte) 0xFF});
    }

    /**
     * XORs {@code mask} into the first replica of slice {@code slice} of {@code key}, {@code offset} bytes
     * into the slice, in that node's pool file: what a node that lies about its bytes serves.
     */
    public void xorBytes(String key, int slice, long offset, byte[] mask) throws IOException {
        xorBytes(key, slice, 0, offset, mask);
    }

    /** As {@link #xorBytes(String, int, long, byte[])}, in the slice's replica number {@code replicaIndex}. */
    public void xorBytes(String key, int slice, int replicaIndex, long offset, byte[] mask) throws IOException {
        ReplicaRef replica;
        try (StoreClient client = StoreClient.connect(masterAddress(), adminOptions()); ObjectReader object = client.open(key)) {
            replica = object.object().slice(slice).replicas().get(replicaIndex);
        }
        try (FileChannel pool = FileChannel.open(pool(indexOf(replica.nodeId())), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long position = POOL_DATA_START + replica.offset() + offset;
            ByteBuffer bytes = ByteBuffer.allocate(mask.length);
            pool.read(bytes, position);
            for (int i = 0; i < mask.length; i++) {
                bytes.put(i, (byte) (bytes.get(i) ^ mask[i]));
            }
            pool.write(bytes.flip(), position);
        }
    }

    /**
     * Tells the master that node {@code index} serves its data plane at {@code port} on loopback (a proxy
     * in front of it, say): clients that locate objects from now on connect there. The node itself is
     * untouched and keeps heartbeating, so the master keeps the new address.
     */
    public void advertise(int index, int port) throws StoreException {
        String nodeId = nodes.get(index).nodeId();
        NodeInfo info = master.core().status().nodes().stream().map(NodeStatus::info).filter(n -> n.nodeId().equals(nodeId))
                .findFirst().orElseThrow(() -> new IllegalStateException("the master does not know node " + nodeId));
        master.core().registerNode(new NodeInfo(nodeId, new Endpoint("127.0.0.1", port), info.poolPath(), info.poolUuid(),
                info.capacity()));
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
        try (StoreClient client = StoreClient.connect(masterAddress(), adminOptions())) {
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
        MasterSecurity security = ca == null ? MasterSecurity.insecure()
                : new MasterSecurity.Secure(Credentials.load(credentials(Role.MASTER, "master")), TokenRegistry.load(tokens()));
        master = MasterServer.start(dir.resolve("master"), config, "127.0.0.1", masterPort, security);
    }

    /** The CA's tokens file, which {@link CertificateAuthority#issueToken} fills; the master reads it when it starts. */
    public Path tokens() throws StoreException {
        Path file = ca.dir().resolve(CertificateAuthority.TOKENS_FILE);
        try {
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot create " + file, e);
        }
        return file;
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
