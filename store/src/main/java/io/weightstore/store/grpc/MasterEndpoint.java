package io.weightstore.store.grpc;

import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.metrics.MasterMetrics;
import io.weightstore.store.security.MasterSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    /**
     * How long a new connection may take to finish its handshake: TLS on a secure master, the client's
     * HTTP/2 preface on an insecure one, which gRPC would otherwise wait for without end. A client or a
     * scanner that connects and stays silent holds a socket no longer.
     */
    public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    /** A connection with no call for this long is told to go (clients reconnect when they next call). */
    static final Duration MAX_CONNECTION_IDLE = Duration.ofMinutes(10);
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
        return start(master, bindHost, port, security, List.of(), new MasterMetrics());
    }

    /**
     * As {@link #start(MasterApi, String, int, MasterSecurity)}, with {@code gates} checked before each
     * call, after the caller was admitted: a follower tells only callers it would serve where its leader is.
     * Every call of the API is counted and timed in {@code metrics}.
     */
    public static MasterEndpoint start(MasterApi master, String bindHost, int port, MasterSecurity security,
            List<ServerInterceptor> gates, MasterMetrics metrics) throws StoreException {
        TransportFailureLog.install();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, port)).maxInboundMessageSize(64 << 20)
                .handshakeTimeout(HANDSHAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .maxConnectionIdle(MAX_CONNECTION_IDLE.toMillis(), TimeUnit.MILLISECONDS);
        List<ServerInterceptor> interceptors = new ArrayList<>(gates);
        Optional<TicketOffice> tickets = Optional.empty();
        if (security instanceof MasterSecurity.Secure s) {
            try {
                builder.sslContext(s.credentials().grpcServerContext());
            } catch (GeneralSecurityException | SSLException e) {
                throw new StoreException(StoreException.Code.IO, "cannot set up TLS for the master: " + e.getMessage(), e);
            }
            interceptors.add(new CallerAuthorization(s.tokens())); // the last one added runs first
            tickets = Optional.of(new TicketOffice());
        }
        List<ServerInterceptor> counted = new ArrayList<>(interceptors);
        counted.add(new CallMetrics(metrics));
        builder.addService(ServerInterceptors.intercept(new MasterGrpcService(master, tickets), counted));
        // Reflection describes the API only; a secure endpoint admits to it whom it admits to the API.
        builder.addService(ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(),
                interceptors.subList(gates.size(), interceptors.size())));
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
