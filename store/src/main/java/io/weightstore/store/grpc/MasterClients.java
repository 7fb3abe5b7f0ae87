package io.weightstore.store.grpc;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import java.util.List;

/** Connects to a master, or to a group of masters that follows its leader. */
public final class MasterClients {
    private MasterClients() {}

    /**
     * {@code addresses} is one HOST:PORT (a single master, each call to it alone) or several separated
     * by commas (a group: calls go to the leader, wherever it moves).
     */
    public static MasterApi connect(String addresses, String token) throws StoreException {
        List<MasterAddress> parsed = MasterAddress.parseList(addresses);
        return parsed.size() == 1 ? GrpcMasterApi.connect(parsed.getFirst().toString(), token) : FailoverMasterApi.connect(parsed, token);
    }
}
