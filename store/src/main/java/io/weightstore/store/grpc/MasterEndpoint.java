package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A {@link MasterApi} served over gRPC, with server reflection so {@code grpcurl} works against it.
 * Calls run on virtual threads: they are short and mostly wait on the master's monitor.
 */
public final class MasterEndpoint implements AutoCloseable {
    private final Server server;
    private final ExecutorService executor;

    private MasterEndpoint(Server server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Listens on {@code bindHost:port} (0 for an ephemeral port); a non-empty {@code token} is required of every call. */
    public static MasterEndpoint start(MasterApi master, String bindHost, int port, String token) throws StoreException {
        return start(master, bindHost, port, token, List.of());
    }

    /** As {@link #start(MasterApi, String, int, String)}, with {@code gates} checked (after the token) before each call. */
    public static MasterEndpoint start(MasterApi master, String bindHost, int port, String token, List<ServerInterceptor> gates)
            throws StoreException {
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        List<ServerInterceptor> interceptors = new ArrayList<>(gates);
        if (token != null && !token.isEmpty()) {
            interceptors.add(requireToken(token)); // the last one added runs first
        }
        var service = ServerInterceptors.intercept(new MasterGrpcService(master), interceptors);
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port))
                .executor(executor)
                .maxInboundMessageSize(64 << 20)
                .addService(service)
                .addService(ProtoReflectionServiceV1.newInstance())
                .build();
        try {
            server.start();
        } catch (IOException e) {
            executor.shutdownNow();
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + bindHost + ":" + port + ": " + e.getMessage(), e);
        }
        return new MasterEndpoint(server, executor);
    }

    private static ServerInterceptor requireToken(String token) {
        byte[] expected = ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                    ServerCallHandler<Q, R> next) {
                String presented = headers.get(GrpcStatuses.AUTHORIZATION);
                if (presented == null || !MessageDigest.isEqual(expected, presented.getBytes(StandardCharsets.UTF_8))) {
                    call.close(Status.UNAUTHENTICATED.withDescription("missing or wrong bearer token"), new Metadata());
                    return new ServerCall.Listener<>() {};
                }
                return next.startCall(call, headers);
            }
        };
    }

    public int port() {
        return server.getPort();
    }

    public void awaitTermination() throws InterruptedException {
        server.awaitTermination();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        executor.shutdownNow();
    }
}
