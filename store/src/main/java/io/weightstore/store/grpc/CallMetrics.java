package io.weightstore.store.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.weightstore.store.metrics.MasterMetrics;

/**
 * Counts each call of the master's API by method and status code, and times it from arrival to
 * answer. It runs before every other interceptor, so calls refused for their credentials or by a
 * follower count too.
 */
final class CallMetrics implements ServerInterceptor {
    private final MasterMetrics metrics;

    CallMetrics(MasterMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        long started = System.nanoTime();
        String method = call.getMethodDescriptor().getBareMethodName();
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                metrics.call(method, status.getCode().name(), System.nanoTime() - started);
                super.close(status, trailers);
            }
        }, headers);
    }
}
