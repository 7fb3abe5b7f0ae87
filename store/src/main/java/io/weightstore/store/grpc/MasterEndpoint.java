package io.weightstore.store.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

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

    /**
     * Listens on {@code bindHost:port} (0 for an ephemeral port). A secure endpoint speaks TLS and admits
     * only callers whose certificate or token names a role allowed the method; an insecure one admits
     * anyone, in plaintext.
     */
    public static MasterEndpoint start(MasterApi master, String bindHost, int port, MasterSecurity security) throws StoreException {
        TransportFailureLog.install();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port)).maxInboundMessageSize(64 << 20);
        switch (security) {
            case MasterSecurity.Insecure i -> builder.addService(new MasterGrpcService(master, Optional.empty()))
                    .addService(ProtoReflectionServiceV1.newInstance());
            case MasterSecurity.Secure s -> {
                try {
                    builder.sslContext(s.credentials().grpcServerContext());
                } catch (GeneralSecurityException | SSLException e) {
                    throw new StoreException(StoreException.Code.IO, "cannot set up TLS for the master: " + e.getMessage(), e);
                }
                CallerAuthorization authorization = new CallerAuthorization(s.tokens());
                builder.addService(ServerInterceptors.intercept(new MasterGrpcService(master, Optional.of(new TicketOffice())),
                        authorization))
                        .addService(ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(), authorization));
            }
        }
        ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
        Server server = builder.executor(executor).build();
        try {
            server.start();
        } catch (IOException e) {
            executor.shutdownNow();
            throw new StoreException(StoreException.Code.IO, "cannot listen on " + bindHost + ":" + port + ": " + e.getMessage(), e);
        }
        return new MasterEndpoint(server, executor);
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
