package io.weightstore.gateway;

import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;
import io.weightstore.gateway.bucket.CheckpointBucket;
import io.weightstore.gateway.sigv4.SigV4Verifier;
import io.weightstore.gateway.transfer.TransferSlots;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A read-only, S3-compatible HTTP API over the READY checkpoints of a store, on Helidon's web server
 * (a virtual thread per request): one bucket, whose key {@code <checkpoint-id>/<path>} is that file
 * of that checkpoint. See {@link S3Routes} for the operations, {@link Access} for who may read.
 * The store client stays the caller's: closing the gateway stops serving, not the store.
 */
public final class S3Gateway implements AutoCloseable {
    /** Long enough for a presigned URL of a long key, whose request line carries the key and a signature. */
    private static final int MAX_REQUEST_LINE = 16 << 10;

    private final WebServer server;
    private final ExecutorService readers;
    private final GatewayMetrics metrics;

    private S3Gateway(WebServer server, ExecutorService readers, GatewayMetrics metrics) {
        this.server = server;
        this.readers = readers;
        this.metrics = metrics;
    }

    /** Starts serving {@code store} as {@code config} says; the port is known once this returns. */
    public static S3Gateway start(GatewayConfig config, StoreClient store) {
        Clock clock = Clock.systemUTC();
        CheckpointBucket bucket = new CheckpointBucket(config.bucket(), new Catalog(store));
        ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();
        TransferSlots slots = new TransferSlots(config.maxConcurrent(), config.maxWaiting(), config.chunkBytes());
        GatewayMetrics metrics = new GatewayMetrics(slots, bucket);
        S3Routes routes = new S3Routes(config.bucket(), new SigV4Verifier(config.access().keys(), clock), config.access().anonymous(),
                new BucketHandler(bucket, Instant.now(clock)), new ObjectHandler(bucket, slots, readers, metrics));
        WebServer server = WebServer.builder()
                .host(config.host())
                .port(config.port())
                // A blocking socket takes each chunk in one write; Helidon's NIO socket copies it through an 8 KiB buffer.
                .useNio(false)
                .addProtocol(Http1Config.builder().maxPrologueLength(MAX_REQUEST_LINE).build())
                .routing(HttpRouting.builder().addFilter(new AccessLog(metrics)).any(routes))
                .build()
                .start();
        return new S3Gateway(server, readers, metrics);
    }

    public int port() {
        return server.port();
    }

    /** Requests, bytes and transfer slots, for whoever runs the gateway to expose. */
    public GatewayMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        server.stop();
        readers.close();
    }
}
