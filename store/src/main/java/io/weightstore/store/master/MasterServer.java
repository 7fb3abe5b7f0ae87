package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.MasterEndpoint;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.security.MasterSecurity;
import java.nio.file.Path;
import java.util.List;

/** The master process: a {@link MasterCore} over RocksDB metadata, served over gRPC. */
public final class MasterServer implements AutoCloseable {
    private final MasterCore core;
    private final MasterEndpoint endpoint;
    private final MasterMetrics metrics;

    private MasterServer(MasterCore core, MasterEndpoint endpoint, MasterMetrics metrics) {
        this.core = core;
        this.endpoint = endpoint;
        this.metrics = metrics;
    }

    public static MasterServer start(Path dataDir, MasterConfig config, String bindHost, int port, MasterSecurity security)
            throws StoreException {
        if (port < 0 || port > 65_535) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "port must be in 0..65535: port=" + port);
        }
        MasterMetrics metrics = new MasterMetrics();
        MasterCore core = MasterCore.open(RocksMetadataStore.open(dataDir), config, metrics);
        metrics.serving(core);
        try {
            return new MasterServer(core, MasterEndpoint.start(core, bindHost, port, security, List.of(), metrics), metrics);
        } catch (StoreException | RuntimeException e) {
            core.close();
            throw e;
        }
    }

    public int port() {
        return endpoint.port();
    }

    public MasterCore core() {
        return core;
    }

    /** This master's calls and the cluster it serves, for whoever runs it to expose. */
    public MasterMetrics metrics() {
        return metrics;
    }

    public void awaitTermination() throws InterruptedException {
        endpoint.awaitTermination();
    }

    @Override
    public void close() {
        endpoint.close();
        metrics.stoppedServing(core);
        core.close();
    }
}
