package io.weightstore.store.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.proto.AbortPutsOfRequest;
import io.weightstore.store.proto.AbortPutsOfResponse;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
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
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.RemoveResponse;
import io.weightstore.store.proto.RenewLeaseRequest;
import io.weightstore.store.proto.RenewLeaseResponse;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatResponse;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Serves a {@link MasterApi} over gRPC: requests become domain calls, store errors become statuses. */
final class MasterGrpcService extends MasterGrpc.MasterImplBase {
    private static final Logger log = LoggerFactory.getLogger(MasterGrpcService.class);

    /** One master operation, answered with a protobuf response. */
    @FunctionalInterface
    private interface Operation<T> {
        T run() throws StoreException;
    }

    private final MasterApi master;

    MasterGrpcService(MasterApi master) {
        this.master = master;
    }

    private static <T> void unary(StreamObserver<T> observer, Operation<T> operation) {
        T response;
        try {
            response = operation.run();
        } catch (StoreException e) {
            observer.onError(GrpcStatuses.toStatus(e));
            return;
        } catch (RuntimeException e) {
            log.error("master operation failed", e);
            observer.onError(Status.INTERNAL.withDescription(String.valueOf(e.getMessage())).asRuntimeException());
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    @Override
    public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> observer) {
        unary(observer, () -> RegisterNodeResponse.newBuilder()
                .setHeartbeatIntervalMs(master.registerNode(Protos.fromProto(request.getNode())).toMillis()).build());
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer) {
        unary(observer, () -> HeartbeatResponse.newBuilder().setKnown(master.heartbeat(request.getNodeId())).build());
    }

    @Override
    public void putStart(PutStartRequest request, StreamObserver<PutStartResponse> observer) {
        unary(observer, () -> {
            PutGrant grant = master.putStart(request.getKey(), request.getSize(), new PutOptions(Math.max(1, request.getReplicas()),
                    request.getSliceSize(), request.getReplace(), request.getPin(), request.getWriter()));
            PutStartResponse.Builder response = PutStartResponse.newBuilder().setPutId(grant.putId())
                    .setObject(Protos.toProto(grant.object())).setDeadlineMs(grant.deadline().toEpochMilli());
            grant.nodes().values().forEach(n -> response.addNodes(Protos.toProto(n)));
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
        unary(observer, () -> {
            Located located = master.locate(request.getKey(), Duration.ofMillis(Math.max(0, request.getLeaseMs())));
            LocateResponse.Builder response = LocateResponse.newBuilder().setObject(Protos.toProto(located.object()))
                    .setLeaseId(located.lease().id()).setLeaseExpiresMs(located.lease().expiresAt().toEpochMilli());
            located.nodes().values().forEach(n -> response.addNodes(Protos.toProto(n)));
            return response.build();
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
            master.remove(request.getKey(), request.getForce());
            return RemoveResponse.getDefaultInstance();
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
    public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
        unary(observer, () -> {
            StoreStatus status = master.status();
            StatusResponse.Builder response = StatusResponse.newBuilder().setObjects(status.objects())
                    .setPendingPuts(status.pendingPuts());
            status.nodes().forEach(n -> response.addNodes(Protos.toProto(n)));
            status.masters().forEach(m -> response.addMasters(Protos.toProto(m)));
            status.etcd().forEach(m -> response.addEtcd(Protos.toProto(m)));
            return response.build();
        });
    }
}
