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
import io.weightstore.store.StoreException;
import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterCore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The master process: {@link MasterCore} served over gRPC, with server reflection so {@code grpcurl}
 * works against it. Calls run on virtual threads; they are short and mostly wait on the metadata
 * store's monitor.
 */
public final class MasterServer implements AutoCloseable {
    private final MasterCore core;
    private final Server server;
    private final ExecutorService executor;

    private MasterServer(MasterCore core, Server server, ExecutorService executor) {
        this.core = core;
        this.server = server;
        this.executor = executor;
    }

    public static MasterServer start(Path dataDir, MasterConfig config, String bindHost, int port, String token)
            throws StoreException {
        MasterCore core = MasterCore.open(dataDir, config);
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        var service = token == null || token.isEmpty() ? ServerInterceptors.intercept(new MasterGrpcService(core))
                : ServerInterceptors.intercept(new MasterGrpcService(core), requireToken(token));
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port))
                .executor(executor)
                .maxInboundMessageSize(64 << 20)
                .addService(service)
                .addService(ProtoReflectionServiceV1.newInstance())
                .build();
        try {
            server.start();
        } catch (IOException e) {
            core.close();
            executor.shutdownNow();
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + bindHost + ":" + port + ": " + e.getMessage(), e);
        }
        return new MasterServer(core, server, executor);
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

    public MasterCore core() {
        return core;
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
        core.close();
    }
}
