package io.weightstore.store.ha;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.weightstore.store.api.EtcdMemberStatus;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks each etcd member for its status at once, under one deadline for all: a member that has not answered by then is
 * unhealthy. A deadline each, waited in turn, made k members that do not answer cost k times it, when a status is wanted most.
 */
final class EtcdHealth {
    private EtcdHealth() {}

    static List<EtcdMemberStatus> check(Client etcd, List<URI> endpoints, Duration timeout) {
        List<CompletableFuture<StatusResponse>> asked = new ArrayList<>();
        for (URI endpoint : endpoints) {
            asked.add(etcd.getMaintenanceClient().statusMember(endpoint.toString()));
        }
        try {
            CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Each member's own answer, or its silence, is read below.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<EtcdMemberStatus> members = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            String endpoint = endpoints.get(i).toString();
            CompletableFuture<StatusResponse> answer = asked.get(i);
            if (!answer.isDone()) {
                answer.cancel(true);
                members.add(new EtcdMemberStatus(endpoint, false, false, "", 0, "etcd did not answer a status request to " + endpoint
                        + " within " + timeout.toMillis() + " ms"));
                continue;
            }
            try {
                StatusResponse status = answer.join();
                members.add(new EtcdMemberStatus(endpoint, true, status.getLeader() == status.getHeader().getMemberId(),
                        status.getVersion(), status.getDbSize(), ""));
            } catch (CompletionException | CancellationException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                members.add(new EtcdMemberStatus(endpoint, false, false, "", 0, "etcd refused a status request to " + endpoint + ": "
                        + cause.getMessage()));
            }
        }
        return members;
    }
}
