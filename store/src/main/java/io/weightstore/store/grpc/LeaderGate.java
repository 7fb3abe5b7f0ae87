package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Optional;

/**
 * Lets a call through only where a master of a group may answer it. A refused call ends with
 * UNAVAILABLE before the master sees it, so the client knows it was not carried out, and with the
 * trailer {@code leader} naming the leader's HOST:PORT (or "none"), so it can go there at once.
 */
public final class LeaderGate implements ServerInterceptor {
    /** Why a master does not answer, and the leader to try instead, if one is known. */
    public record Refusal(String reason, Optional<String> leader) {}

    /** Decides per call; {@code method} is the RPC's simple name, such as "Heartbeat". */
    @FunctionalInterface
    public interface Policy {
        Optional<Refusal> refusal(String method);
    }

    private final Policy policy;

    public LeaderGate(Policy policy) {
        this.policy = policy;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        Optional<Refusal> refusal = policy.refusal(call.getMethodDescriptor().getBareMethodName());
        if (refusal.isEmpty()) {
            return next.startCall(call, headers);
        }
        Metadata trailers = GrpcStatuses.answered();
        trailers.put(GrpcStatuses.LEADER, refusal.get().leader().orElse(GrpcStatuses.NO_LEADER));
        call.close(Status.UNAVAILABLE.withDescription(refusal.get().reason()), trailers);
        return new ServerCall.Listener<>() {};
    }
}
