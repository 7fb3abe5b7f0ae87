package io.weightstore.store.ha;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.weightstore.store.api.EtcdMemberStatus;
import io.weightstore.store.api.StoreException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Asks each etcd member for its status at once, each with a deadline: a member that does not answer is unhealthy. */
final class EtcdHealth {
    private EtcdHealth() {}

    static List<EtcdMemberStatus> check(Client etcd, List<URI> endpoints, Duration timeout) {
        List<CompletableFuture<StatusResponse>> asked = new ArrayList<>();
        for (URI endpoint : endpoints) {
            asked.add(etcd.getMaintenanceClient().statusMember(endpoint.toString()));
        }
        List<EtcdMemberStatus> members = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            String endpoint = endpoints.get(i).toString();
            try {
                StatusResponse status = Etcd.await(asked.get(i), timeout, "a status request to " + endpoint);
                members.add(new EtcdMemberStatus(endpoint, true, status.getLeader() == status.getHeader().getMemberId(),
                        status.getVersion(), status.getDbSize(), ""));
            } catch (StoreException e) {
                members.add(new EtcdMemberStatus(endpoint, false, false, "", 0, e.getMessage()));
            }
        }
        return members;
    }
}
