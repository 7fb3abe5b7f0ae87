package io.weightstore.store.grpc;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.HeldLease;
import io.weightstore.store.api.Lease;
import io.weightstore.store.api.ListPage;
import io.weightstore.store.api.Located;
import io.weightstore.store.api.LockState;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeDrain;
import io.weightstore.store.api.NodeForgotten;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.NodeOrders;
import io.weightstore.store.api.NodeReport;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.Room;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.StoreStatus;
import io.weightstore.store.proto.AbortPutsOfRequest;
import io.weightstore.store.proto.DrainNodeRequest;
import io.weightstore.store.proto.DrainNodeResponse;
import io.weightstore.store.proto.FinishCopyRequest;
import io.weightstore.store.proto.ForgetNodeRequest;
import io.weightstore.store.proto.ForgetNodeResponse;
import io.weightstore.store.proto.KeepLocalCopiesRequest;
import io.weightstore.store.proto.ListRequest;
import io.weightstore.store.proto.ListResponse;
import io.weightstore.store.proto.LocateAllRequest;
import io.weightstore.store.proto.LocateRequest;
import io.weightstore.store.proto.LocateResponse;
import io.weightstore.store.proto.LockRequest;
import io.weightstore.store.proto.LockResponse;
import io.weightstore.store.proto.MasterGrpc;
import io.weightstore.store.proto.PutAbortRequest;
import io.weightstore.store.proto.PutEndRequest;
import io.weightstore.store.proto.PutStartRequest;
import io.weightstore.store.proto.PutStartResponse;
import io.weightstore.store.proto.RegisterNodeRequest;
import io.weightstore.store.proto.ReleaseLeaseRequest;
import io.weightstore.store.proto.ReleaseLeasesRequest;
import io.weightstore.store.proto.RemoveAllRequest;
import io.weightstore.store.proto.RemoveRequest;
import io.weightstore.store.proto.RenewLeaseRequest;
import io.weightstore.store.proto.RenewLeasesRequest;
import io.weightstore.store.proto.RepairAbortRequest;
import io.weightstore.store.proto.RepairEndRequest;
import io.weightstore.store.proto.RepairStartRequest;
import io.weightstore.store.proto.RoomRequest;
import io.weightstore.store.proto.RoomResponse;
import io.weightstore.store.proto.SetReplicasRequest;
import io.weightstore.store.proto.StatRequest;
import io.weightstore.store.proto.StatusRequest;
import io.weightstore.store.proto.StatusResponse;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.NodeKeys;
import io.weightstore.store.security.Token;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** {@link MasterApi} over gRPC: TLS and the caller's credential unless insecure, a deadline on every call, domain records both ways. */
public final class GrpcMasterApi implements MasterApi {
    static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(15);

    /** One RPC on the blocking stub. */
    @FunctionalInterface
    private interface Rpc<T> {
        T call(MasterGrpc.MasterBlockingStub stub) throws StoreException;
    }

    private final ManagedChannel channel;
    private final MasterGrpc.MasterBlockingStub stub;
    private final MasterAddress target;
    private final Duration deadline;
    private final Optional<NodeKeys> nodeKeys;
    private final boolean plaintext;
    /** False for a {@link #withDeadline} view, which leaves the channel to the instance it came from. */
    private final boolean ownsChannel;

    private GrpcMasterApi(ManagedChannel channel, MasterAddress target, Duration deadline, Optional<NodeKeys> nodeKeys,
            boolean plaintext, boolean ownsChannel) {
        this.channel = channel;
        this.stub = MasterGrpc.newBlockingStub(channel);
        this.target = target;
        this.deadline = deadline;
        this.nodeKeys = nodeKeys;
        this.plaintext = plaintext;
        this.ownsChannel = ownsChannel;
    }

    /** This master over the same connection, with {@code other} on every call; closing it leaves the connection open. */
    GrpcMasterApi withDeadline(Duration other) {
        return new GrpcMasterApi(channel, target, other, nodeKeys, plaintext, false);
    }

    /** Connects lazily to the master at {@code address} (HOST:PORT); the first call reports an unreachable master. */
    public static GrpcMasterApi connect(String address, Authentication authentication) throws StoreException {
        return connect(address, authentication, Optional.empty());
    }

    /**
     * As {@link #connect(String, Authentication)}, for a node: its registrations carry {@code nodeKeys}, so a
     * secure master can seal tickets the node checks.
     */
    public static GrpcMasterApi connect(String address, Authentication authentication, Optional<NodeKeys> nodeKeys)
            throws StoreException {
        return connect(address, authentication, nodeKeys, DEFAULT_DEADLINE);
    }

    /** As {@link #connect(String, Authentication, Optional)}, with {@code deadline} on every call. */
    public static GrpcMasterApi connect(String address, Authentication authentication, Optional<NodeKeys> nodeKeys, Duration deadline)
            throws StoreException {
        MasterAddress target = MasterAddress.parse(address);
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(target.host(), target.port()).maxInboundMessageSize(256 << 20);
        switch (authentication) {
            case Authentication.Insecure i -> builder.usePlaintext();
            case Authentication.Certificate c -> builder.sslContext(authentication.grpcClientContext());
            case Authentication.BearerToken t -> builder.sslContext(authentication.grpcClientContext()).intercept(bearer(t.token()));
        }
        return new GrpcMasterApi(builder.build(), target, deadline, nodeKeys,
                authentication instanceof Authentication.Insecure, true);
    }

    private static ClientInterceptor bearer(Token token) {
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(GrpcStatuses.AUTHORIZATION, "Bearer " + token.reveal());
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    private <T> T call(String what, Rpc<T> rpc) throws StoreException {
        try {
            return rpc.call(stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS));
        } catch (StatusRuntimeException e) {
            throw GrpcStatuses.toStoreException(e, what + " at master " + target, plaintext);
        }
    }

    /** As {@link #call}; empty when the master does not know the call (a release before it). */
    private <T> Optional<T> callUnlessUnimplemented(String what, Rpc<T> rpc) throws StoreException {
        try {
            return Optional.of(rpc.call(stub.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)));
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
                return Optional.empty();
            }
            throw GrpcStatuses.toStoreException(e, what + " at master " + target, plaintext);
        }
    }

    @Override
    public Duration registerNode(NodeInfo node) throws StoreException {
        RegisterNodeRequest.Builder request = RegisterNodeRequest.newBuilder().setNode(Protos.toProto(node));
        nodeKeys.ifPresent(keys -> request.setTicketKey(ByteString.copyFrom(keys.session().bytes()))
                .setGrantKey(ByteString.copyFrom(keys.grant().bytes())));
        return call("register node " + node.nodeId(), s -> Duration.ofMillis(s.registerNode(request.build()).getHeartbeatIntervalMs()));
    }

    @Override
    public NodeOrders heartbeat(NodeReport report) throws StoreException {
        return call("heartbeat", s -> Protos.fromProto(s.heartbeat(Protos.toProto(report))));
    }

    @Override
    public void finishCopy(String nodeId, String taskId, CopyOutcome outcome) throws StoreException {
        FinishCopyRequest.Builder request = FinishCopyRequest.newBuilder().setNodeId(nodeId).setTaskId(taskId);
        if (outcome instanceof CopyOutcome.Failed failed) {
            request.setFailure(failed.why()).setSourceBad(failed.sourceBad());
        }
        call("report copy " + taskId, s -> s.finishCopy(request.build()));
    }

    @Override
    public PutGrant putStart(String key, long size, PutOptions options) throws StoreException {
        return call("put " + key, s -> {
            PutStartResponse response = s.putStart(PutStartRequest.newBuilder().setKey(key).setSize(size)
                    .setReplicas(options.replicas()).setSliceSize(options.sliceSize()).setReplace(options.replace())
                    .setPin(options.pin()).setWriter(options.writer()).setLock(options.lock())
                    .setAutoReplicas(options.autoReplicas()).build());
            return new PutGrant(response.getPutId(), Protos.fromProto(response.getObject()), Protos.nodeInfos(response.getNodesList()),
                    Instant.ofEpochMilli(response.getDeadlineMs()), options.writer(), options.lock(),
                    Protos.tickets(response.getTicketsList()), Protos.grants(response.getGrantsList()));
        });
    }

    @Override
    public ObjectMeta putEnd(String putId, List<BlockCrcs> checksums) throws StoreException {
        PutEndRequest.Builder request = PutEndRequest.newBuilder().setPutId(putId);
        checksums.forEach(c -> request.addChecksums(Protos.toProto(c)));
        return call("seal put " + putId, s -> Protos.fromProto(s.putEnd(request.build()).getObject()));
    }

    @Override
    public void putAbort(String putId) throws StoreException {
        call("abort put " + putId, s -> s.putAbort(PutAbortRequest.newBuilder().setPutId(putId).build()));
    }

    @Override
    public int abortPutsOf(String writer) throws StoreException {
        return call("abort the puts of " + writer, s -> s.abortPutsOf(AbortPutsOfRequest.newBuilder().setWriter(writer).build())
                .getAborted());
    }

    @Override
    public ObjectMeta stat(String key) throws StoreException {
        return call("stat " + key, s -> Protos.fromProto(s.stat(StatRequest.newBuilder().setKey(key).build()).getObject()));
    }

    @Override
    public Located locate(String key, Duration lease) throws StoreException {
        return call("locate " + key, s -> located(s.locate(LocateRequest.newBuilder().setKey(key).setLeaseMs(lease.toMillis()).build())));
    }

    private static Located located(LocateResponse response) throws StoreException {
        return new Located(Protos.fromProto(response.getObject()), Protos.nodeStatuses(response.getNodesList()),
                new Lease(response.getLeaseId(), Instant.ofEpochMilli(response.getLeaseExpiresMs())),
                Protos.tickets(response.getTicketsList()));
    }

    /** A master of a release before this call answers UNIMPLEMENTED: then each object is located in a call of its own. */
    @Override
    public List<Located> locateAll(List<String> keys, Duration lease) throws StoreException {
        LocateAllRequest request = LocateAllRequest.newBuilder().addAllKeys(keys).setLeaseMs(lease.toMillis()).build();
        Optional<List<Located>> all = callUnlessUnimplemented("locate " + keys.size() + " objects", s -> {
            List<Located> located = new ArrayList<>();
            for (LocateResponse response : s.locateAll(request).getLocatedList()) {
                located.add(located(response));
            }
            return located;
        });
        if (all.isPresent()) {
            if (all.get().size() != keys.size()) {
                throw new StoreException(StoreException.Code.PROTOCOL, "master " + target + " located " + all.get().size()
                        + " objects for " + keys.size() + " keys");
            }
            return all.get();
        }
        List<Located> located = new ArrayList<>();
        try {
            for (String key : keys) {
                located.add(locate(key, lease));
            }
        } catch (StoreException e) {
            // All or nothing, as the master's own call is.
            for (Located taken : located) {
                try {
                    releaseLease(taken.object().key(), taken.lease().id());
                } catch (StoreException again) {
                    e.addSuppressed(again);
                }
            }
            throw e;
        }
        return located;
    }

    /** As {@link #locateAll}, one call per lease on a master of a release before this call. */
    @Override
    public void releaseLeases(List<HeldLease> leases) throws StoreException {
        ReleaseLeasesRequest request = ReleaseLeasesRequest.newBuilder().addAllLeases(Protos.toProto(leases)).build();
        if (callUnlessUnimplemented("release " + leases.size() + " leases", s -> s.releaseLeases(request)).isEmpty()) {
            for (HeldLease lease : leases) {
                releaseLease(lease.key(), lease.leaseId());
            }
        }
    }

    @Override
    public Lease renewLease(String key, long leaseId, Duration lease) throws StoreException {
        return call("renew lease on " + key, s -> new Lease(leaseId, Instant.ofEpochMilli(s.renewLease(RenewLeaseRequest.newBuilder()
                .setKey(key).setLeaseId(leaseId).setLeaseMs(lease.toMillis()).build()).getLeaseExpiresMs())));
    }

    @Override
    public void releaseLease(String key, long leaseId) throws StoreException {
        call("release lease on " + key, s -> s.releaseLease(ReleaseLeaseRequest.newBuilder().setKey(key).setLeaseId(leaseId).build()));
    }

    /** As {@link #locateAll}, one call per lease on a master of a release before this call. */
    @Override
    public List<Optional<Lease>> renewLeases(List<HeldLease> leases, Duration lease) throws StoreException {
        RenewLeasesRequest request = RenewLeasesRequest.newBuilder().addAllLeases(Protos.toProto(leases)).setLeaseMs(lease.toMillis())
                .build();
        Optional<List<Long>> expiries = callUnlessUnimplemented("renew " + leases.size() + " leases",
                s -> s.renewLeases(request).getLeaseExpiresMsList());
        List<Optional<Lease>> renewed = new ArrayList<>();
        if (expiries.isPresent()) {
            if (expiries.get().size() != leases.size()) {
                throw new StoreException(StoreException.Code.PROTOCOL, "master " + target + " renewed " + expiries.get().size()
                        + " leases of " + leases.size());
            }
            for (int i = 0; i < leases.size(); i++) {
                long expires = expiries.get().get(i);
                renewed.add(expires == 0 ? Optional.empty() : Optional.of(new Lease(leases.get(i).leaseId(), Instant.ofEpochMilli(expires))));
            }
            return renewed;
        }
        for (HeldLease held : leases) {
            try {
                renewed.add(Optional.of(renewLease(held.key(), held.leaseId(), lease)));
            } catch (StoreException e) {
                if (e.code() != StoreException.Code.NOT_FOUND) {
                    throw e;
                }
                renewed.add(Optional.empty());
            }
        }
        return renewed;
    }

    @Override
    public void remove(String key, boolean force) throws StoreException {
        call("remove " + key, s -> s.remove(RemoveRequest.newBuilder().setKey(key).setForce(force).build()));
    }

    @Override
    public int removeAll(List<String> keys, boolean force, String writer, String lock) throws StoreException {
        return call("remove " + keys.size() + " objects", s -> s.removeAll(RemoveAllRequest.newBuilder().addAllKeys(keys)
                .setForce(force).setWriter(writer).setLock(lock).build()).getRemoved());
    }

    @Override
    public ListPage list(String prefix, String startAfter, int limit) throws StoreException {
        return call("list " + prefix, s -> {
            ListResponse page = s.list(ListRequest.newBuilder().setPrefix(prefix).setStartAfter(startAfter).setLimit(limit).build());
            List<ObjectMeta> objects = new ArrayList<>();
            page.getObjectsList().forEach(o -> objects.add(Protos.fromProto(o)));
            return new ListPage(objects, page.getNextStartAfter().isEmpty() ? Optional.empty() : Optional.of(page.getNextStartAfter()));
        });
    }

    @Override
    public LockState tryLock(String name, String owner, Duration ttl) throws StoreException {
        return call("lock " + name, s -> lockState(s.tryLock(lock(name, owner, ttl))));
    }

    @Override
    public LockState renewLock(String name, String owner, Duration ttl) throws StoreException {
        return call("renew lock " + name, s -> lockState(s.renewLock(lock(name, owner, ttl))));
    }

    @Override
    public void releaseLock(String name, String owner) throws StoreException {
        call("release lock " + name, s -> s.releaseLock(lock(name, owner, Duration.ZERO)));
    }

    private static LockRequest lock(String name, String owner, Duration ttl) {
        return LockRequest.newBuilder().setName(name).setOwner(owner).setTtlMs(ttl.toMillis()).build();
    }

    private static LockState lockState(LockResponse response) {
        return new LockState(response.getHeld(), response.getOwner(), Instant.ofEpochMilli(response.getExpiresMs()));
    }

    @Override
    public StoreStatus status() throws StoreException {
        return call("status", s -> {
            StatusResponse response = s.status(StatusRequest.getDefaultInstance());
            return new StoreStatus(List.copyOf(Protos.nodeStatuses(response.getNodesList()).values()), response.getObjects(),
                    response.getPendingPuts(), response.getMastersList().stream().map(Protos::fromProto).toList(),
                    response.getEtcdList().stream().map(Protos::fromProto).toList(), Protos.fromProto(response.getReplication()),
                    held(response.getHeldForCaller(), response.getHeldForOthers(), response.getHeldForOthersUntilMillis()));
        });
    }

    @Override
    public Room room() throws StoreException {
        return call("room", s -> {
            RoomResponse room = s.room(RoomRequest.getDefaultInstance());
            return new Room(room.getCapacity(), room.getUsed(), room.getEvictable(),
                    held(room.getHeldForCaller(), room.getHeldForOthers(), room.getHeldForOthersUntilMillis()), room.getNodesUp());
        });
    }

    /** Held room as both the room and the status answers carry it: 0 for the time when nothing is held for others. */
    private static Room.Held held(long forCaller, long forOthers, long othersUntilMillis) {
        return new Room.Held(forCaller, forOthers,
                othersUntilMillis == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(othersUntilMillis)));
    }

    @Override
    public RepairGrant repairStart(String key, Instant version, int slice, String replacing) throws StoreException {
        return call("repair slice " + slice + " of " + key, s -> Protos.fromProto(s.repairStart(RepairStartRequest.newBuilder()
                .setKey(key).setObjectCreatedMs(version.toEpochMilli()).setSlice(slice).setReplacingNodeId(replacing).build()), key,
                slice, replacing));
    }

    @Override
    public ObjectMeta repairEnd(String repairId) throws StoreException {
        return call("commit repair " + repairId, s -> Protos.fromProto(s.repairEnd(RepairEndRequest.newBuilder()
                .setRepairId(repairId).build()).getObject()));
    }

    @Override
    public void repairAbort(String repairId) throws StoreException {
        call("abort repair " + repairId, s -> s.repairAbort(RepairAbortRequest.newBuilder().setRepairId(repairId).build()));
    }

    @Override
    public NodeForgotten forgetNode(String nodeId, boolean force) throws StoreException {
        return call("forget node " + nodeId, s -> {
            ForgetNodeResponse response = s.forgetNode(ForgetNodeRequest.newBuilder().setNodeId(nodeId).setForce(force).build());
            return new NodeForgotten(nodeId, response.getObjects(), response.getReplicas(), response.getPutsAborted());
        });
    }

    @Override
    public int setReplicas(List<String> keys, int replicas, boolean auto) throws StoreException {
        return call("set the replicas of " + keys.size() + " objects", s -> s.setReplicas(SetReplicasRequest.newBuilder()
                .addAllKeys(keys).setReplicas(replicas).setAuto(auto).build()).getChanged());
    }

    @Override
    public int keepLocalCopies(List<String> keys, String nodeId) throws StoreException {
        return call("keep local copies on node " + nodeId, s -> s.keepLocalCopies(KeepLocalCopiesRequest.newBuilder()
                .addAllKeys(keys).setNodeId(nodeId).build()).getChanged());
    }

    @Override
    public NodeDrain drainNode(String nodeId, boolean cancel) throws StoreException {
        return call((cancel ? "stop draining node " : "drain node ") + nodeId, s -> {
            DrainNodeResponse response = s.drainNode(DrainNodeRequest.newBuilder().setNodeId(nodeId).setCancel(cancel).build());
            return new NodeDrain(nodeId, response.getDraining(), response.getReplicasLeft());
        });
    }

    @Override
    public void close() {
        if (!ownsChannel) {
            return;
        }
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
