package io.weightstore.store.grpc;

import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.NodeKeys;
import java.util.List;
import java.util.Optional;

/** Connects to a master, or to a group of masters that follows its leader. */
public final class MasterClients {
    private MasterClients() {}

    /**
     * {@code addresses} is one HOST:PORT (a single master, each call to it alone) or several separated
     * by commas (a group: calls go to the leader, wherever it moves).
     */
    public static MasterApi connect(String addresses, Authentication authentication) throws StoreException {
        return connect(addresses, authentication, Optional.empty());
    }

    /** As {@link #connect(String, Authentication)}, for a node, whose registrations carry {@code nodeKeys}. */
    public static MasterApi connect(String addresses, Authentication authentication, Optional<NodeKeys> nodeKeys)
            throws StoreException {
        List<MasterAddress> parsed = MasterAddress.parseList(addresses);
        return parsed.size() == 1 ? GrpcMasterApi.connect(parsed.getFirst().toString(), authentication, nodeKeys)
                : FailoverMasterApi.connect(parsed, authentication, nodeKeys);
    }
}
