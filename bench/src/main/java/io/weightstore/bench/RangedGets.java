package io.weightstore.bench;

import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;

/**
 * How HTTP- and S3-style loaders fetch files: in Range requests of a fixed size, over N parallel
 * connections, into off-heap memory. One client for every server it is pointed at, so that servers
 * compared with it are compared by the same code.
 */
final class RangedGets implements AutoCloseable {
    private final HttpClient client;
    private final int connections;
    private final long rangeBytes;

    RangedGets(int connections, long rangeBytes) {
        this.connections = connections;
        this.rangeBytes = rangeBytes;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(connections, Thread.ofPlatform().daemon().factory())).build();
    }

    int connections() {
        return connections;
    }

    long rangeBytes() {
        return rangeBytes;
    }

    /** Fetches {@code baseUrl/<file>} for every file, whole, each packed at the start of {@code dst} (reused for each file). */
    void fetch(String baseUrl, List<String> files, List<Long> sizes, MemorySegment dst) throws Exception {
        Semaphore inFlight = new Semaphore(connections);
        List<CompletableFuture<Void>> requests = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            for (long start = 0; start < sizes.get(f); start += rangeBytes) {
                long length = Math.min(rangeBytes, sizes.get(f) - start);
                MemorySegment target = dst.asSlice(start, length);
                HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/" + files.get(f)))
                        .header("Range", "bytes=" + start + "-" + (start + length - 1)).build();
                inFlight.acquire();
                requests.add(client.sendAsync(request, info -> HttpResponse.BodySubscribers.fromSubscriber(new Into(target)))
                        .thenAccept(response -> {
                            if (response.statusCode() != 206) {
                                throw new IllegalStateException(baseUrl + " answered " + response.statusCode() + " to a range request");
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
    }
}
