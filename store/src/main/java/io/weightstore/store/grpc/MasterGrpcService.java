package io.weightstore.store.grpc;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.weightstore.store.api.Caller;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.proto.AbortPutsOfRequest;
import io.weightstore.store.proto.AbortPutsOfResponse;
import io.weightstore.store.proto.DrainNodeRequest;
import io.weightstore.store.proto.DrainNodeResponse;
import io.weightstore.store.proto.FinishCopyRequest;
import io.weightstore.store.proto.FinishCopyResponse;
import io.weightstore.store.proto.ForgetNodeRequest;
import io.weightstore.store.proto.ForgetNodeResponse;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.KeepLocalCopiesRequest;
import io.weightstore.store.proto.KeepLocalCopiesResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LocateAllRequest;
import io.weightstore.store.proto.LocateAllResponse;
import io.weightstore.store.proto.LocateRequest;
import io.weightstore.store.proto.LocateResponse;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.LockResponse;
import io.weightstore.store.proto.MasterGrpc;
import io.weightstore.store.proto.PutAbortRequest;
import io.weightstore.store.proto.PutAbortResponse;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutEndResponse;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.proto.RegisterNodeResponse;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.ReleaseLeaseResponse;
import io.weightstore.store.proto.ReleaseLeasesRequest;
import io.weightstore.store.proto.ReleaseLeasesResponse;
import io.weightstore.store.proto.RemoveAllRequest;
import io.weightstore.store.proto.RemoveAllResponse;
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.RemoveResponse;
import io.weightstore.store.proto.RenewLeaseRequest;
import io.weightstore.store.proto.RenewLeaseResponse;
import io.weightstore.store.proto.RenewLeasesRequest;
import io.weightstore.store.proto.RenewLeasesResponse;
import io.weightstore.store.proto.RepairAbortRequest;
import io.weightstore.store.proto.RepairAbortResponse;
import io.weightstore.store.proto.RepairEndRequest;
import io.weightstore.store.proto.RepairEndResponse;
import io.weightstore.store.proto.RepairStartRequest;
import io.weightstore.store.proto.RepairStartResponse;
import io.weightstore.store.proto.ReplicaGrant;
import io.weightstore.store.proto.RoomRequest;
import io.weightstore.store.proto.RoomResponse;
import io.weightstore.store.proto.SetReplicasRequest;
import io.weightstore.store.proto.SetReplicasResponse;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatResponse;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Permission;
import io.weightstore.store.security.TicketKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link MasterApi} over gRPC: requests become domain calls, store errors become statuses.
 * On a secure endpoint it also seals, for the authenticated caller, the tickets nodes ask for.
 */
final class MasterGrpcService extends MasterGrpc.MasterImplBase {
    private static final Logger log = LoggerFactory.getLogger(MasterGrpcService.class);

    /** One master operation, answered with a protobuf response. */
    @FunctionalInterface
    private interface Operation<T> {
        T run() throws StoreException;
    }

    private final MasterApi master;
    private final Optional<TicketOffice> tickets;

    /** {@code tickets} present on a secure endpoint only. */
    MasterGrpcService(MasterApi master, Optional<TicketOffice> tickets) {
        this.master = master;
        this.tickets = tickets;
    }

    /** Runs one call, on behalf of the authenticated caller when there is one, so the master can record who wrote what. */
    private static <T> void unary(StreamObserver<T> observer, Operation<T> operation) {
        T response;
        Identity caller = CallerAuthorization.CALLER.get();
        try {
            response = caller == null ? operation.run() : Caller.as(caller.toString(), operation::run);
        } catch (StoreException e) {
            observer.onError(GrpcStatuses.toStatus(e));
            return;
        } catch (RuntimeException | Error e) {
            // Answered here, Errors too: gRPC would close the call as UNKNOWN without the trailer that tells a client a
            // master answered, and the client would take this master for another server on its port.
            log.error("master operation failed", e);
            observer.onError(Status.INTERNAL.withDescription(Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName()))
                    .asRuntimeException(GrpcStatuses.answered()));
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    /** On a secure endpoint, a node may only speak for the node id its credential names. */
    private static void requireOwnNode(String nodeId) throws StoreException {
        Identity caller = CallerAuthorization.CALLER.get();
        if (caller != null && !caller.name().equals(nodeId)) {
            throw new StoreException(StoreException.Code.PERMISSION_DENIED, "the credential of " + caller.name()
                    + " cannot speak for node " + nodeId);
        }
    }

    /** On a secure endpoint, removing objects that readers hold needs more than removing. */
    private static void requireForceAllowed(boolean force) throws StoreException {
        Identity caller = CallerAuthorization.CALLER.get();
        if (force && caller != null && !caller.role().allows(Permission.FORCE_DELETE)) {
            throw new StoreException(StoreException.Code.PERMISSION_DENIED, caller.name() + " (" + caller.role().label()
                    + ") may not remove objects that readers hold (FORCE_DELETE)");
        }
    }

    @Override
    public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> observer) {
        unary(observer, () -> {
            String nodeId = request.getNode().getNodeId();
            requireOwnNode(nodeId);
            if (tickets.isPresent()) {
                if (request.getTicketKey().size() != TicketKey.BYTES || request.getGrantKey().size() != TicketKey.BYTES) {
                    throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "node " + nodeId + " must send its "
                            + TicketKey.BYTES + "-byte ticket and grant keys to register with a secure master: ticket key "
                            + request.getTicketKey().size() + " bytes, grant key " + request.getGrantKey().size() + " bytes");
                }
            }
            Duration heartbeatInterval = master.registerNode(Protos.fromProto(request.getNode()));
            // Only a registration the master took: one it refused (another pool under a node's id) must not replace the
            // keys of the node that holds the id.
            if (tickets.isPresent()) {
                tickets.get().register(nodeId, TicketKey.of(request.getTicketKey().toByteArray()),
                        TicketKey.of(request.getGrantKey().toByteArray()));
            }
            return RegisterNodeResponse.newBuilder().setHeartbeatIntervalMs(heartbeatInterval.toMillis()).build();
        });
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer) {
        unary(observer, () -> {
            requireOwnNode(request.getNodeId());
            // A master that lost the node's key (it restarted) asks it to register again, key and all.
            if (tickets.isPresent() && !tickets.get().knows(request.getNodeId())) {
                return Protos.toProto(NodeOrders.unknown());
            }
            NodeOrders orders = master.heartbeat(Protos.fromProto(request));
            Identity caller = CallerAuthorization.CALLER.get();
            if (tickets.isPresent() && caller != null) {
                // The node reads each copy's source over the data plane with a grant for exactly that range, sealed
                // for the source: the node role itself reads nothing.
                List<CopyTask> sealed = new ArrayList<>();
                for (CopyTask task : orders.copies()) {
                    tickets.get().read(task.source().nodeId(), caller, task.sourceOffset(), task.length())
                            .ifPresent(grant -> sealed.add(task.withReadGrant(grant)));
                }
                orders = orders.withCopies(sealed);
            }
            return Protos.toProto(orders);
        });
    }

    @Override
    public void finishCopy(FinishCopyRequest request, StreamObserver<FinishCopyResponse> observer) {
        unary(observer, () -> {
            requireOwnNode(request.getNodeId());
            master.finishCopy(request.getNodeId(), request.getTaskId(), request.getFailure().isEmpty() ? new CopyOutcome.Done()
                    : new CopyOutcome.Failed(request.getFailure(), request.getSourceBad()));
            return FinishCopyResponse.getDefaultInstance();
        });
    }

    @Override
    public void setReplicas(SetReplicasRequest request, StreamObserver<SetReplicasResponse> observer) {
        unary(observer, () -> SetReplicasResponse.newBuilder().setChanged(master.setReplicas(request.getKeysList(),
                request.getReplicas(), request.getAuto())).build());
    }

    @Override
    public void keepLocalCopies(KeepLocalCopiesRequest request, StreamObserver<KeepLocalCopiesResponse> observer) {
        unary(observer, () -> KeepLocalCopiesResponse.newBuilder().setChanged(master.keepLocalCopies(request.getKeysList(),
                request.getNodeId())).build());
    }

    @Override
    public void drainNode(DrainNodeRequest request, StreamObserver<DrainNodeResponse> observer) {
        unary(observer, () -> {
            NodeDrain drain = master.drainNode(request.getNodeId(), request.getCancel());
            return DrainNodeResponse.newBuilder().setDraining(drain.draining()).setReplicasLeft(drain.replicasLeft()).build();
        });
    }

    @Override
    public void putStart(PutStartRequest request, StreamObserver<PutStartResponse> observer) {
        unary(observer, () -> {
            PutGrant grant = master.putStart(request.getKey(), request.getSize(), new PutOptions(Math.max(1, request.getReplicas()),
                    request.getSliceSize(), request.getReplace(), request.getPin(), request.getWriter(), request.getLock(),
                    request.getAutoReplicas()));
            PutStartResponse.Builder response = PutStartResponse.newBuilder().setPutId(grant.putId())
                    .setObject(Protos.toProto(grant.object())).setDeadlineMs(grant.deadline().toEpochMilli());
            grant.nodes().values().forEach(n -> response.addNodes(Protos.toProto(n)));
            Identity caller = CallerAuthorization.CALLER.get();
            boolean certified = CallerAuthorization.CERTIFIED.get();
            if (tickets.isPresent() && caller != null) {
                for (String nodeId : grant.nodes().keySet()) {
                    tickets.get().session(nodeId, caller, certified).ifPresent(t -> response.addTickets(Protos.toProto(nodeId, t)));
                }
                for (SliceMeta slice : grant.object().slices()) {
                    for (ReplicaRef replica : slice.replicas()) {
                        tickets.get().write(replica.nodeId(), caller, replica.offset(), slice.length(), grant.deadline())
                                .ifPresent(t -> response.addGrants(ReplicaGrant.newBuilder().setNodeId(replica.nodeId())
                                        .setOffset(replica.offset()).setGrant(ByteString.copyFrom(t.bytes()))));
                    }
                }
            }
            return response.build();
        });
    }

    @Override
    public void putEnd(PutEndRequest request, StreamObserver<PutEndResponse> observer) {
        unary(observer, () -> PutEndResponse.newBuilder().setObject(Protos.toProto(master.putEnd(request.getPutId(),
                request.getChecksumsList().stream().map(Protos::fromProto).toList()))).build());
    }

    @Override
    public void putAbort(PutAbortRequest request, StreamObserver<PutAbortResponse> observer) {
        unary(observer, () -> {
            master.putAbort(request.getPutId());
            return PutAbortResponse.getDefaultInstance();
        });
    }

    @Override
    public void abortPutsOf(AbortPutsOfRequest request, StreamObserver<AbortPutsOfResponse> observer) {
        unary(observer, () -> AbortPutsOfResponse.newBuilder().setAborted(master.abortPutsOf(request.getWriter())).build());
    }

    @Override
    public void stat(StatRequest request, StreamObserver<StatResponse> observer) {
        unary(observer, () -> StatResponse.newBuilder().setObject(Protos.toProto(master.stat(request.getKey()))).build());
    }

    @Override
    public void locate(LocateRequest request, StreamObserver<LocateResponse> observer) {
        unary(observer, () -> located(master.locate(request.getKey(), Duration.ofMillis(Math.max(0, request.getLeaseMs())))));
    }

    @Override
    public void locateAll(LocateAllRequest request, StreamObserver<LocateAllResponse> observer) {
        unary(observer, () -> {
            LocateAllResponse.Builder response = LocateAllResponse.newBuilder();
            for (Located located : master.locateAll(request.getKeysList(), Duration.ofMillis(Math.max(0, request.getLeaseMs())))) {
                response.addLocated(located(located));
            }
            return response.build();
        });
    }

    /** Where the object is, its lease, and on a secure master a session ticket per node holding it for the caller. */
    private LocateResponse located(Located located) {
        LocateResponse.Builder response = LocateResponse.newBuilder().setObject(Protos.toProto(located.object()))
                .setLeaseId(located.lease().id()).setLeaseExpiresMs(located.lease().expiresAt().toEpochMilli());
        located.nodes().values().forEach(n -> response.addNodes(Protos.toProto(n)));
        Identity caller = CallerAuthorization.CALLER.get();
        boolean certified = CallerAuthorization.CERTIFIED.get();
        if (tickets.isPresent() && caller != null) {
            for (String nodeId : located.nodes().keySet()) {
                tickets.get().session(nodeId, caller, certified).ifPresent(t -> response.addTickets(Protos.toProto(nodeId, t)));
            }
        }
        return response.build();
    }

    @Override
    public void renewLeases(RenewLeasesRequest request, StreamObserver<RenewLeasesResponse> observer) {
        unary(observer, () -> {
            RenewLeasesResponse.Builder response = RenewLeasesResponse.newBuilder();
            for (Optional<Lease> lease : master.renewLeases(Protos.heldLeases(request.getLeasesList()),
                    Duration.ofMillis(Math.max(0, request.getLeaseMs())))) {
                response.addLeaseExpiresMs(lease.map(l -> l.expiresAt().toEpochMilli()).orElse(0L));
            }
            return response.build();
        });
    }

    @Override
    public void releaseLeases(ReleaseLeasesRequest request, StreamObserver<ReleaseLeasesResponse> observer) {
        unary(observer, () -> {
            master.releaseLeases(Protos.heldLeases(request.getLeasesList()));
            return ReleaseLeasesResponse.getDefaultInstance();
        });
    }

    @Override
    public void renewLease(RenewLeaseRequest request, StreamObserver<RenewLeaseResponse> observer) {
        unary(observer, () -> {
            Lease lease = master.renewLease(request.getKey(), request.getLeaseId(), Duration.ofMillis(Math.max(0, request.getLeaseMs())));
            return RenewLeaseResponse.newBuilder().setLeaseExpiresMs(lease.expiresAt().toEpochMilli()).build();
        });
    }

    @Override
    public void releaseLease(ReleaseLeaseRequest request, StreamObserver<ReleaseLeaseResponse> observer) {
        unary(observer, () -> {
            master.releaseLease(request.getKey(), request.getLeaseId());
            return ReleaseLeaseResponse.getDefaultInstance();
        });
    }

    @Override
    public void remove(RemoveRequest request, StreamObserver<RemoveResponse> observer) {
        unary(observer, () -> {
            requireForceAllowed(request.getForce());
            master.remove(request.getKey(), request.getForce());
            return RemoveResponse.getDefaultInstance();
        });
    }

    @Override
    public void removeAll(RemoveAllRequest request, StreamObserver<RemoveAllResponse> observer) {
        unary(observer, () -> {
            requireForceAllowed(request.getForce());
            return RemoveAllResponse.newBuilder().setRemoved(master.removeAll(request.getKeysList(), request.getForce(),
                    request.getWriter(), request.getLock())).build();
        });
    }

    @Override
    public void list(ListRequest request, StreamObserver<ListResponse> observer) {
        unary(observer, () -> {
            ListPage page = master.list(request.getPrefix(), request.getStartAfter(), request.getLimit());
            ListResponse.Builder response = ListResponse.newBuilder().setNextStartAfter(page.next().orElse(""));
            page.objects().forEach(o -> response.addObjects(Protos.toProto(o)));
            return response.build();
        });
    }

    @Override
    public void tryLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> lockResponse(master.tryLock(request.getName(), request.getOwner(), ttl(request))));
    }

    @Override
    public void renewLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> lockResponse(master.renewLock(request.getName(), request.getOwner(), ttl(request))));
    }

    @Override
    public void releaseLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> {
            master.releaseLock(request.getName(), request.getOwner());
            return LockResponse.newBuilder().setHeld(false).build();
        });
    }

    private static Duration ttl(LockRequest request) {
        return Duration.ofMillis(request.getTtlMs());
    }

    private static LockResponse lockResponse(LockState state) {
        return LockResponse.newBuilder().setHeld(state.held()).setOwner(state.owner()).setExpiresMs(state.expiresAt().toEpochMilli())
                .build();
    }

    @Override
    public void room(RoomRequest request, StreamObserver<RoomResponse> observer) {
        unary(observer, () -> {
            Room room = master.room();
            Room.Held held = room.held();
            return RoomResponse.newBuilder().setCapacity(room.capacity()).setUsed(room.used()).setEvictable(room.evictable())
                    .setNodesUp(room.nodesUp()).setHeldForCaller(held.forCaller()).setHeldForOthers(held.forOthers())
                    .setHeldForOthersUntilMillis(held.othersUntil().map(Instant::toEpochMilli).orElse(0L)).build();
        });
    }

    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
        unary(observer, () -> {
            StoreStatus status = master.status();
            StatusResponse.Builder response = StatusResponse.newBuilder().setObjects(status.objects())
                    .setPendingPuts(status.pendingPuts());
            status.nodes().forEach(n -> response.addNodes(Protos.toProto(n)));
            status.masters().forEach(m -> response.addMasters(Protos.toProto(m)));
            status.etcd().forEach(m -> response.addEtcd(Protos.toProto(m)));
            response.setReplication(Protos.toProto(status.replication()));
            response.setHeldForCaller(status.held().forCaller()).setHeldForOthers(status.held().forOthers())
                    .setHeldForOthersUntilMillis(status.held().othersUntil().map(Instant::toEpochMilli).orElse(0L));
            return response.build();
        });
    }

    @Override
    public void repairStart(RepairStartRequest request, StreamObserver<RepairStartResponse> observer) {
        unary(observer, () -> {
            RepairGrant grant = master.repairStart(request.getKey(), Instant.ofEpochMilli(request.getObjectCreatedMs()),
                    request.getSlice(), request.getReplacingNodeId());
            RepairStartResponse.Builder response = Protos.toProto(grant).toBuilder();
            Identity caller = CallerAuthorization.CALLER.get();
            boolean certified = CallerAuthorization.CERTIFIED.get();
            if (tickets.isPresent() && caller != null) {
                String nodeId = grant.target().nodeId();
                long length = master.stat(grant.key()).slice(grant.slice()).length();
                tickets.get().session(nodeId, caller, certified).ifPresent(t -> response.addTickets(Protos.toProto(nodeId, t)));
                tickets.get().write(nodeId, caller, grant.target().offset(), length, grant.deadline())
                        .ifPresent(t -> response.setGrant(ByteString.copyFrom(t.bytes())));
            }
            return response.build();
        });
    }

    @Override
    public void repairEnd(RepairEndRequest request, StreamObserver<RepairEndResponse> observer) {
        unary(observer, () -> RepairEndResponse.newBuilder().setObject(Protos.toProto(master.repairEnd(request.getRepairId()))).build());
    }

    @Override
    public void repairAbort(RepairAbortRequest request, StreamObserver<RepairAbortResponse> observer) {
        unary(observer, () -> {
            master.repairAbort(request.getRepairId());
            return RepairAbortResponse.getDefaultInstance();
        });
    }

    @Override
    public void forgetNode(ForgetNodeRequest request, StreamObserver<ForgetNodeResponse> observer) {
        unary(observer, () -> {
            NodeForgotten forgotten = master.forgetNode(request.getNodeId(), request.getForce());
            return ForgetNodeResponse.newBuilder().setObjects(forgotten.objects()).setReplicas(forgotten.replicas())
                    .setPutsAborted(forgotten.putsAborted()).build();
        });
    }
}
