package io.weightstore.store.grpc;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.weightstore.store.MasterApi;
import io.weightstore.store.StoreException;
import io.weightstore.store.proto.GetReplicasRequest;
import io.weightstore.store.proto.GetReplicasResponse;
import io.weightstore.store.proto.HeartbeatRequest;
import io.weightstore.store.proto.HeartbeatResponse;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
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
import io.weightstore.store.proto.SetPinnedRequest;
import io.weightstore.store.proto.SetPinnedResponse;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatResponse;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Adapts gRPC calls to the in-process master, turning store errors into statuses. */
final class MasterGrpcService extends MasterGrpc.MasterImplBase {
    private static final Logger log = LoggerFactory.getLogger(MasterGrpcService.class);

    /** One master operation, as the in-process API declares it. */
    @FunctionalInterface
    private interface Operation<T> {
        T run() throws StoreException;
    }

    private final MasterApi core;

    MasterGrpcService(MasterApi core) {
        this.core = core;
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
        unary(observer, () -> core.registerNode(request));
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer) {
        unary(observer, () -> core.heartbeat(request));
    }

    @Override
    public void putStart(PutStartRequest request, StreamObserver<PutStartResponse> observer) {
        unary(observer, () -> core.putStart(request));
    }

    @Override
    public void putEnd(PutEndRequest request, StreamObserver<PutEndResponse> observer) {
        unary(observer, () -> core.putEnd(request));
    }

    @Override
    public void putAbort(PutAbortRequest request, StreamObserver<PutAbortResponse> observer) {
        unary(observer, () -> core.putAbort(request));
    }

    @Override
    public void stat(StatRequest request, StreamObserver<StatResponse> observer) {
        unary(observer, () -> core.stat(request));
    }

    @Override
    public void getReplicas(GetReplicasRequest request, StreamObserver<GetReplicasResponse> observer) {
        unary(observer, () -> core.getReplicas(request));
    }

    @Override
    public void releaseLease(ReleaseLeaseRequest request, StreamObserver<ReleaseLeaseResponse> observer) {
        unary(observer, () -> core.releaseLease(request));
    }

    @Override
    public void remove(RemoveRequest request, StreamObserver<RemoveResponse> observer) {
        unary(observer, () -> core.remove(request));
    }

    @Override
    public void list(ListRequest request, StreamObserver<ListResponse> observer) {
        unary(observer, () -> core.list(request));
    }

    @Override
    public void setPinned(SetPinnedRequest request, StreamObserver<SetPinnedResponse> observer) {
        unary(observer, () -> core.setPinned(request));
    }

    @Override
    public void tryLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> core.tryLock(request));
    }

    @Override
    public void renewLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> core.renewLock(request));
    }

    @Override
    public void releaseLock(LockRequest request, StreamObserver<LockResponse> observer) {
        unary(observer, () -> core.releaseLock(request));
    }

    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> observer) {
        unary(observer, () -> core.status(request));
    }
}
