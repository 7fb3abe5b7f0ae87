package io.weightstore.store.grpc;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
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
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/** {@link MasterApi} over gRPC, with a deadline on every call and the bearer token when one is set. */
public final class GrpcMasterApi implements MasterApi {
    private static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(15);

    private final ManagedChannel channel;
    private final MasterGrpc.MasterBlockingStub stub;
    private final String target;
    private final Duration deadline;

    private GrpcMasterApi(ManagedChannel channel, String target, Duration deadline) {
        this.channel = channel;
        this.stub = MasterGrpc.newBlockingStub(channel);
        this.target = target;
        this.deadline = deadline;
    }

    /** Connects lazily to {@code host:port}; the first call reports an unreachable master. */
    public static GrpcMasterApi connect(String hostPort, String token) {
        return connect(hostPort, token, DEFAULT_DEADLINE);
    }

    public static GrpcMasterApi connect(String hostPort, String token, Duration deadline) {
        NettyChannelBuilder builder = NettyChannelBuilder.forTarget(hostPort).usePlaintext().maxInboundMessageSize(256 << 20);
        if (token != null && !token.isEmpty()) {
            builder.intercept(bearer(token));
        }
        return new GrpcMasterApi(builder.build(), hostPort, deadline);
    }

    private static ClientInterceptor bearer(String token) {
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(GrpcStatuses.AUTHORIZATION, "Bearer " + token);
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    private <T> T call(String what, Function<MasterGrpc.MasterBlockingStub, T> rpc) throws StoreException {
        try {
            return rpc.apply(stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS));
        } catch (StatusRuntimeException e) {
            throw GrpcStatuses.toStoreException(e, what + " at master " + target);
        }
    }

    @Override
    public RegisterNodeResponse registerNode(RegisterNodeRequest request) throws StoreException {
        return call("register node", s -> s.registerNode(request));
    }

    @Override
    public HeartbeatResponse heartbeat(HeartbeatRequest request) throws StoreException {
        return call("heartbeat", s -> s.heartbeat(request));
    }

    @Override
    public PutStartResponse putStart(PutStartRequest request) throws StoreException {
        return call("put " + request.getKey(), s -> s.putStart(request));
    }

    @Override
    public PutEndResponse putEnd(PutEndRequest request) throws StoreException {
        return call("seal put " + request.getPutId(), s -> s.putEnd(request));
    }

    @Override
    public PutAbortResponse putAbort(PutAbortRequest request) throws StoreException {
        return call("abort put " + request.getPutId(), s -> s.putAbort(request));
    }

    @Override
    public StatResponse stat(StatRequest request) throws StoreException {
        return call("stat " + request.getKey(), s -> s.stat(request));
    }

    @Override
    public GetReplicasResponse getReplicas(GetReplicasRequest request) throws StoreException {
        return call("locate " + request.getKey(), s -> s.getReplicas(request));
    }

    @Override
    public ReleaseLeaseResponse releaseLease(ReleaseLeaseRequest request) throws StoreException {
        return call("release lease on " + request.getKey(), s -> s.releaseLease(request));
    }

    @Override
    public RemoveResponse remove(RemoveRequest request) throws StoreException {
        return call("remove " + request.getKey(), s -> s.remove(request));
    }

    @Override
    public ListResponse list(ListRequest request) throws StoreException {
        return call("list " + request.getPrefix(), s -> s.list(request));
    }

    @Override
    public SetPinnedResponse setPinned(SetPinnedRequest request) throws StoreException {
        return call("pin " + request.getKey(), s -> s.setPinned(request));
    }

    @Override
    public LockResponse tryLock(LockRequest request) throws StoreException {
        return call("lock " + request.getName(), s -> s.tryLock(request));
    }

    @Override
    public LockResponse renewLock(LockRequest request) throws StoreException {
        return call("renew lock " + request.getName(), s -> s.renewLock(request));
    }

    @Override
    public LockResponse releaseLock(LockRequest request) throws StoreException {
        return call("release lock " + request.getName(), s -> s.releaseLock(request));
    }

    @Override
    public StatusResponse status(StatusRequest request) throws StoreException {
        return call("status", s -> s.status(request));
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
