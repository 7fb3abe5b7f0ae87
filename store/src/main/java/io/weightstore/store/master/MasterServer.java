package io.weightstore.store.master;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.grpc.MasterEndpoint;
import io.weightstore.store.security.MasterSecurity;
import java.nio.file.Path;

/** The master process: a {@link MasterCore} over RocksDB metadata, served over gRPC. */
public final class MasterServer implements AutoCloseable {
    private final MasterCore core;
    private final MasterEndpoint endpoint;

    private MasterServer(MasterCore core, MasterEndpoint endpoint) {
        this.core = core;
        this.endpoint = endpoint;
    }

    public static MasterServer start(Path dataDir, MasterConfig config, String bindHost, int port, MasterSecurity security)
            throws StoreException {
        if (port < 0 || port > 65_535) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "port must be in 0..65535: port=" + port);
        }
        MasterCore core = MasterCore.open(RocksMetadataStore.open(dataDir), config);
        try {
            return new MasterServer(core, MasterEndpoint.start(core, bindHost, port, security));
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

    public void awaitTermination() throws InterruptedException {
        endpoint.awaitTermination();
    }

    @Override
    public void close() {
        endpoint.close();
        core.close();
    }
}
