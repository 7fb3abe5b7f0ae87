package io.weightstore.gateway;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.sigv4.SigV4Verifier;
import io.weightstore.gateway.transfer.TransferSlots;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.wire.TcpSockets;
import io.weightstore.weights.Catalog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A read-only, S3-compatible HTTP API over the READY checkpoints of a store: one bucket, whose key
 * {@code <checkpoint-id>/<path>} is that file of that checkpoint. See {@link S3Routes} for the
 * operations, {@link Access} for who may read.
 *
 * <p>It runs on Netty rather than a web framework because Netty's socket writes take files and
 * off-heap buffers as they are: an object goes to the client with sendfile from the pool files, or
 * from the buffer the nodes' bytes were read into, with no copy in user space (Helidon, which writes
 * only {@code byte[]}, cost two). Each request runs on a virtual thread; the event loops only move
 * bytes. The store client stays the caller's: closing the gateway stops serving, not the store.
 */
public final class S3Gateway implements AutoCloseable {
    /** Long enough for a presigned URL of a long key, whose request line carries the key and a signature. */
    private static final int MAX_REQUEST_LINE = 16 << 10;
    private static final int MAX_HEADERS = 16 << 10;

    private final Channel server;
    /** As the kernel reported it for the listening socket, read once before the bind: read later, it could race a close. */
    private final String congestionControl;
    private final ChannelGroup connections;
    private final EventLoopGroup loops;
    private final ExecutorService requests;
    private final ExecutorService readers;
    private final TransferSlots slots;
    private final GatewayMetrics metrics;

    private S3Gateway(Channel server, String congestionControl, ChannelGroup connections, EventLoopGroup loops,
            ExecutorService requests, ExecutorService readers, TransferSlots slots, GatewayMetrics metrics) {
        this.server = server;
        this.congestionControl = congestionControl;
        this.connections = connections;
        this.loops = loops;
        this.requests = requests;
        this.readers = readers;
        this.slots = slots;
        this.metrics = metrics;
    }

    /**
     * Starts serving {@code store} as {@code config} says; the port is known once this returns.
     *
     * @throws UncheckedIOException when the address cannot be listened on
     * @throws IllegalArgumentException when the kernel refuses the configured TCP congestion control
     */
    public static S3Gateway start(GatewayConfig config, StoreClient store) {
        ServerSocketChannel listener = listener(config.congestionControl());
        try {
            return serve(config, store, listener, TcpSockets.congestionControl(listener));
        } catch (IOException e) {
            close(listener, e);
            throw new UncheckedIOException("the gateway's listening socket: " + e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            close(listener, e);
            throw e;
        }
    }

    private static S3Gateway serve(GatewayConfig config, StoreClient store, ServerSocketChannel listener, String algorithm) {
        Clock clock = Clock.systemUTC();
        CheckpointBucket bucket = new CheckpointBucket(config.bucket(), new Catalog(store));
        ExecutorService requests = Executors.newVirtualThreadPerTaskExecutor();
        ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
        TransferSlots slots = new TransferSlots(config.maxConcurrent(), config.maxWaiting(), config.chunkBytes(), config.sendTimeout());
        GatewayMetrics metrics = new GatewayMetrics(slots, bucket);
        S3Routes routes = new S3Routes(config.bucket(), new SigV4Verifier(config.access().keys(), clock), config.access().anonymous(),
                new BucketHandler(bucket, slots, Instant.now(clock)), new ObjectHandler(bucket, slots, readers, metrics));
        AccessLog accessLog = new AccessLog(metrics);
        HttpDecoderConfig decoding = new HttpDecoderConfig().setMaxInitialLineLength(MAX_REQUEST_LINE).setMaxHeaderSize(MAX_HEADERS);
        ChannelGroup connections = new DefaultChannelGroup("gateway-connections", GlobalEventExecutor.INSTANCE);
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("gateway-io", true), NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap().group(loops)
                .channelFactory(() -> new NioServerSocketChannel(listener))
                .handler(new ConnectionLimit(config.maxConnections()))
                // One accept per read, so that the cap switches accepting off before a burst is taken past it (Netty takes
                // up to 16 a read, and ConnectionLimit must close those past the cap, where they would have waited).
                .option(ChannelOption.RCVBUF_ALLOCATOR, new ServerChannelRecvByteBufAllocator().maxMessagesPerRead(1))
                .childOption(ChannelOption.AUTO_READ, false)
                // A client's FIN is an event, not the connection's end: one that shuts its side after its request still
                // gets the answer (ConnectionHandler decides).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        connections.add(channel);
                        RequestHeadDeadline headDeadline = new RequestHeadDeadline(config.requestHeadTimeout());
                        channel.pipeline().addLast(new IdleStateHandler(true, 0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS),
                                headDeadline, new HttpServerCodec(decoding),
                                new ConnectionHandler(routes, accessLog, requests, config.sendTimeout(), headDeadline));
                    }
                });
        ChannelFuture bound = bootstrap.bind(config.host(), config.port()).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            requests.close();
            readers.close();
            slots.close();
            throw new UncheckedIOException(new IOException("the gateway cannot listen on " + config.host() + ":" + config.port() + ": "
                    + bound.cause().getMessage(), bound.cause()));
        }
        return new S3Gateway(bound.channel(), algorithm, connections, loops, requests, readers, slots, metrics);
    }

    private static void close(ServerSocketChannel listener, Throwable failure) {
        try {
            listener.close();
        } catch (IOException suppressed) {
            failure.addSuppressed(suppressed);
        }
    }

    /**
     * The listening socket, set before its bind to send under {@code congestionControl}: the connections it accepts inherit
     * the algorithm, and one set after a connection is up keeps the pacing the first one switched on.
     *
     * @throws IllegalArgumentException when the kernel refuses the algorithm
     * @throws UncheckedIOException when no socket can be opened
     */
    private static ServerSocketChannel listener(CongestionControl congestionControl) {
        ServerSocketChannel listener;
        try {
            listener = ServerSocketChannel.open();
        } catch (IOException e) {
            throw new UncheckedIOException(new IOException("the gateway cannot open a socket to listen on: " + e.getMessage(), e));
        }
        try {
            TcpSockets.setCongestionControl(listener, congestionControl);
            return listener;
        } catch (IOException | RuntimeException e) {
            close(listener, e);
            throw e instanceof RuntimeException unchecked ? unchecked
                    : new IllegalArgumentException("gateway: " + e.getMessage(), e);
        }
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The TCP congestion control responses go out under, as the kernel reported it for the listening socket. */
    public String congestionControl() {
        return congestionControl;
    }

    /** Requests, bytes and transfer slots, for whoever runs the gateway to expose. */
    public GatewayMetrics metrics() {
        return metrics;
    }

    /** Stops listening, closes every connection, and waits for the requests in progress to end, which that makes them do. */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        requests.close();
        readers.close();
        loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        slots.close();
    }
}
