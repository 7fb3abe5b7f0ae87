package io.weightstore.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;

/**
 * How HTTP- and S3-style loaders fetch: nginx serves the checkpoint directory, and the files are
 * fetched in 64 MiB HTTP Range requests over N parallel connections into off-heap memory.
 */
final class HttpRangeLoad implements AutoCloseable {
    static final long CHUNK = 64L << 20;

    private final PeerProcess nginx;
    private final HttpClient client;
    private final int connections;

    private HttpRangeLoad(PeerProcess nginx, int connections) {
        this.nginx = nginx;
        this.connections = connections;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(connections, Thread.ofPlatform().daemon().factory())).build();
    }

    /** Starts nginx (as found on this machine) serving {@code root}; null when nginx is not installed. */
    static HttpRangeLoad start(Path root, Path work, int connections) throws IOException {
        Path binary = PeerProcess.find("nginx");
        if (binary == null) {
            return null;
        }
        int port = PeerProcess.freePort();
        Path prefix = Files.createDirectories(work.resolve("nginx"));
        Path conf = prefix.resolve("nginx.conf");
        Files.writeString(conf, """
                daemon off;
                worker_processes 2;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log warn;
                events { worker_connections 256; }
                http {
                    access_log off;
                    sendfile on;
                    tcp_nopush on;
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                    server {
                        listen 127.0.0.1:%2$d;
                        root %3$s;
                    }
                }
                """.formatted(prefix, port, root.toAbsolutePath()));
        PeerProcess nginx = PeerProcess.start("nginx", List.of(binary.toString(), "-p", prefix.toString(), "-c", conf.toString()),
                port, prefix.resolve("stdout.log"));
        return new HttpRangeLoad(nginx, connections);
    }

    /** Fetches every file whole, packing them one after another into {@code dst} (reused for each file). */
    void fetch(List<String> files, List<Long> sizes, MemorySegment dst) throws Exception {
        Semaphore inFlight = new Semaphore(connections);
        List<CompletableFuture<Void>> requests = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            for (long start = 0; start < sizes.get(f); start += CHUNK) {
                long length = Math.min(CHUNK, sizes.get(f) - start);
                MemorySegment target = dst.asSlice(start, length);
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + nginx.port() + "/" + files.get(f)))
                        .header("Range", "bytes=" + start + "-" + (start + length - 1)).build();
                inFlight.acquire();
                requests.add(client.sendAsync(request, info -> HttpResponse.BodySubscribers.fromSubscriber(new Into(target)))
                        .thenAccept(response -> {
                            if (response.statusCode() != 206) {
                                throw new IllegalStateException("nginx answered " + response.statusCode() + " to a range request");
                            }
                        }).whenComplete((ok, error) -> inFlight.release()));
            }
        }
        CompletableFuture.allOf(requests.toArray(CompletableFuture[]::new)).join();
    }

    /** Copies a response body into off-heap memory as it arrives, as a Java HTTP loader would. */
    private static final class Into implements Flow.Subscriber<List<ByteBuffer>> {
        private final MemorySegment target;
        private long position;
        private Flow.Subscription subscription;

        Into(MemorySegment target) {
            this.target = target;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> buffers) {
            for (ByteBuffer buffer : buffers) {
                int n = buffer.remaining();
                if (position + n > target.byteSize()) {
                    subscription.cancel();
                    throw new IllegalStateException("response longer than the range asked for");
                }
                MemorySegment.copy(MemorySegment.ofBuffer(buffer), 0, target, position, n);
                position += n;
            }
        }

        @Override
        public void onError(Throwable error) {}

        @Override
        public void onComplete() {
            if (position != target.byteSize()) {
                throw new IllegalStateException("response had " + position + " bytes, expected " + target.byteSize());
            }
        }
    }

    @Override
    public void close() {
        client.close();
        nginx.close();
    }
}
