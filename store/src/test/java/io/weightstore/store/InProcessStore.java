package io.weightstore.store;

import io.weightstore.store.api.Endpoint;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterCore;
import io.weightstore.store.master.RocksMetadataStore;
import io.weightstore.store.pool.PoolFile;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The embedded store's parts, a master and one pool in {@code dir}, with the client talking to the
 * master through what a test puts around it, to lose or delay its answers.
 */
public final class InProcessStore {
    private InProcessStore() {}

    public static StoreClient open(Path dir, long capacity, UnaryOperator<MasterApi> around) throws StoreException {
        return open(dir, capacity, MasterConfig.defaults(), around);
    }

    public static StoreClient open(Path dir, long capacity, MasterConfig config, UnaryOperator<MasterApi> around) throws StoreException {
        MasterCore master = MasterCore.open(RocksMetadataStore.open(dir.resolve("master")), config);
        try (PoolFile pool = PoolFile.openOrCreate(dir.resolve("pool"), capacity)) {
            master.registerNode(new NodeInfo(pool.nodeId(), Endpoint.inProcess(), pool.path().toAbsolutePath().toString(), pool.uuid(),
                    pool.capacity()));
        } catch (StoreException | RuntimeException e) {
            master.close();
            throw e;
        }
        return StoreClient.over(around.apply(master), ClientOptions.defaults());
    }
}
