package io.weightstore.bench;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.node.NodeOptions;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.security.MasterSecurity;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A master and three nodes in this process, on loopback, with pools in a directory (use /dev/shm for memory). */
final class BenchCluster implements AutoCloseable {
    private final MasterServer master;
    private final List<StorageNode> nodes = new ArrayList<>();

    BenchCluster(Path dir, long bytesToHold) throws StoreException {
        master = MasterServer.start(dir.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0, MasterSecurity.insecure());
        long capacity = Math.ceilDiv(bytesToHold, 3) + (512L << 20);
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(StorageNode.start(address(), NodeOptions.loopback(dir.resolve("pool" + i), capacity)));
            }
        } catch (StoreException | RuntimeException e) {
            close();
            throw e;
        }
    }

    String address() {
        return "127.0.0.1:" + master.port();
    }

    StoreClient client(boolean sameHost, int connections) throws StoreException {
        return StoreClient.connect(address(), ClientOptions.defaults().withSameHostPath(sameHost).withConnections(connections));
    }

    @Override
    public void close() throws StoreException {
        for (StorageNode node : nodes) {
            node.close();
        }
        master.close();
    }
}
