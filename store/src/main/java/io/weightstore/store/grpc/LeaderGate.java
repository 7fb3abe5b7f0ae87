package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.weightstore.store.api.StoreException;
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

    /** Marks, among the causes of a failure, a leadership that ended under the call. */
    private static final class SteppedDown extends Exception {
        private static final long serialVersionUID = 1L;

        SteppedDown(Throwable cause) {
            super("the master stopped leading", cause, false, false);
        }
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

    /**
     * The failure of a call whose leadership ended under it (the master stepped down, or closed its
     * metadata). It goes out marked, so a client of the group tries the next leader rather than take it
     * for the leader's answer (not enough nodes up, say); whether the call took effect stays unknown.
     */
    public static StoreException steppedDown(String why, Throwable cause) {
        return new StoreException(StoreException.Code.UNAVAILABLE, why, new SteppedDown(cause));
    }

    static boolean isSteppedDown(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SteppedDown) {
                return true;
            }
        }
        return false;
    }
}
