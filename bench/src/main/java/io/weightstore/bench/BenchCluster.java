package io.weightstore.bench;

import io.weightstore.store.api.Progress;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.DataPlaneProtection;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.CertificateAuthority;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.security.Role;
import io.weightstore.store.security.TokenRegistry;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ColumnLayoutPlan;
import io.weightstore.weights.ImportRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A master and three nodes in this process, on loopback, with pools in a directory (use /dev/shm for
 * memory): insecure, or secure with a CA of its own and the nodes' data plane in TLS or MAC mode.
 */
final class BenchCluster implements AutoCloseable {
    private final MasterServer master;
    private final List<StorageNode> nodes = new ArrayList<>();
    private final Authentication clientAuthentication;

    BenchCluster(Path dir, long bytesToHold) throws StoreException {
        this(dir, bytesToHold, Optional.empty());
    }

    /** With {@code secure} present, every process runs with certificates of a CA made in {@code dir/ca}. */
    BenchCluster(Path dir, long bytesToHold, Optional<DataPlaneProtection> secure) throws StoreException {
        Optional<CertificateAuthority> ca = secure.isPresent() ? Optional.of(CertificateAuthority.init(dir.resolve("ca")))
                : Optional.empty();
        MasterSecurity security = ca.isPresent()
                ? new MasterSecurity.Secure(issue(ca.get(), dir, Role.MASTER, "master"), TokenRegistry.none()) : MasterSecurity.insecure();
        clientAuthentication = ca.isPresent() ? new Authentication.Certificate(issue(ca.get(), dir, Role.ADMIN, "bench"))
                : Authentication.insecure();
        master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, security);
        long capacity = Math.ceilDiv(bytesToHold, 3) + (512L << 20);
        try {
            for (int i = 0; i < 3; i++) {
                NodeOptions options = NodeOptions.loopback(dir.resolve("pool" + i), capacity);
                if (ca.isPresent()) {
                    options = options.withAuthentication(new Authentication.Certificate(issue(ca.get(), dir, Role.NODE, "node-" + i)))
                            .withDataPlane(secure.get());
                }
                nodes.add(StorageNode.start(address(), options));
            }
        } catch (StoreException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static Credentials issue(CertificateAuthority ca, Path dir, Role role, String name) throws StoreException {
        Path credentials = dir.resolve("credentials").resolve(name);
        ca.issue(role, name, credentials, Duration.ofDays(1), List.of("127.0.0.1"));
        return Credentials.load(credentials);
    }

    String address() {
        return "127.0.0.1:" + master.port();
    }

    /** Imports the checkpoint in {@code source} as {@code id}, one copy, two files at a time, over the nodes' sockets. */
    void importCheckpoint(CheckpointId id, Path source) throws IOException {
        importCheckpoint(id, source, ColumnLayoutPlan.NONE);
    }

    /** As above, with {@code layouts} written beside the files. */
    void importCheckpoint(CheckpointId id, Path source, ColumnLayoutPlan layouts) throws IOException {
        try (StoreClient writer = client(false, 8)) {
            new CheckpointImporter(new Catalog(writer)).run(new ImportRequest(id, "bench/synth", "main", source, 1, true, 2)
                    .withColumnLayouts(layouts), Progress.NONE);
        }
    }

    StoreClient client(boolean sameHost, int connections) throws StoreException {
        return StoreClient.connect(address(), ClientOptions.defaults().withSameHostPath(sameHost).withConnections(connections)
                .withAuthentication(clientAuthentication));
    }

    @Override
    public void close() throws StoreException {
        for (StorageNode node : nodes) {
            node.close();
        }
        master.close();
    }
}
