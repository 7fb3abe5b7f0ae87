package io.weightstore.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The fastest plain HTTP client we could write for the bench's peers, so that nginx is not judged by
 * Java's HttpClient (which hands the body over in small heap buffers): each of N threads keeps one
 * HTTP/1.1 connection alive and takes Range requests from a shared queue, reading each body with
 * blocking reads straight into its place in off-heap memory; only the response head passes
 * through a small buffer.
 */
final class SocketRangedGets implements AutoCloseable {
    private static final int HEAD_LIMIT = 16 << 10;

    /** One Range request and where its body goes. */
    private record Get(String path, long start, MemorySegment target) {}

    private final int connections;
    private final long rangeBytes;
    private final ExecutorService threads;
    /** Kept-alive connections by server ({@code host:port}). */
    private final Map<String, List<SocketChannel>> open = new HashMap<>();

    SocketRangedGets(int connections, long rangeBytes) {
        this.connections = connections;
        this.rangeBytes = rangeBytes;
        this.threads = Executors.newFixedThreadPool(connections, Thread.ofPlatform().daemon().name("http-get-", 0).factory());
    }

    /** Fetches {@code baseUrl/<file>} for every file, whole, each packed at the start of {@code dst} (reused for each file). */
    void fetch(String baseUrl, List<String> files, List<Long> sizes, MemorySegment dst) throws Exception {
        URI base = URI.create(baseUrl);
        ConcurrentLinkedQueue<Get> queue = new ConcurrentLinkedQueue<>();
        for (int f = 0; f < files.size(); f++) {
            for (long start = 0; start < sizes.get(f); start += rangeBytes) {
                long length = Math.min(rangeBytes, sizes.get(f) - start);
                queue.add(new Get(base.getPath() + "/" + files.get(f), start, dst.asSlice(start, length)));
            }
        }
        List<Future<Void>> workers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SocketChannel channel = connection(i, base);
            workers.add(threads.submit(() -> {
                ByteBuffer head = ByteBuffer.allocateDirect(HEAD_LIMIT);
                for (Get get; (get = queue.poll()) != null; ) {
                    get(channel, base, get, head);
                }
                return null;
            }));
        }
        for (Future<Void> worker : workers) {
            worker.get();
        }
    }

    /**
     * The i-th kept-alive connection to {@code base}'s server, opened the first time (connections are
     * reused across fetches from the same server, as a client pool does).
     */
    private synchronized SocketChannel connection(int i, URI base) throws IOException {
        List<SocketChannel> server = open.computeIfAbsent(base.getHost() + ":" + base.getPort(), s -> new ArrayList<>());
        while (server.size() <= i) {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress(base.getHost(), base.getPort()));
            channel.socket().setTcpNoDelay(true);
            server.add(channel);
        }
        return server.get(i);
    }

    private static void get(SocketChannel channel, URI base, Get get, ByteBuffer head) throws IOException {
        long length = get.target().byteSize();
        String request = "GET " + get.path() + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort() + "\r\nRange: bytes="
                + get.start() + "-" + (get.start() + length - 1) + "\r\n\r\n";
        ByteBuffer out = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        while (out.hasRemaining()) {
            channel.write(out);
        }
        head.clear();
        int end;
        while ((end = headEnd(head)) < 0) {
            if (!head.hasRemaining() || channel.read(head) < 0) {
                throw new IOException("no complete response head from " + base + " for " + get.path());
            }
        }
        String text = StandardCharsets.US_ASCII.decode(head.duplicate().flip().limit(end)).toString();
        if (!text.startsWith("HTTP/1.1 206")) {
            throw new IOException(base + get.path() + " answered " + text.lines().findFirst().orElse("") + " to a range request");
        }
        long contentLength = text.lines().map(l -> l.toLowerCase(Locale.ROOT)).filter(l -> l.startsWith("content-length:"))
                .mapToLong(l -> Long.parseLong(l.substring(15).trim())).findFirst().orElse(-1);
        if (contentLength != length) {
            throw new IOException(base + get.path() + " sent content-length " + contentLength + " for a range of " + length);
        }
        // Body bytes that came with the head, then the rest straight into place.
        ByteBuffer early = head.duplicate().flip().position(end);
        int already = early.remaining();
        MemorySegment.copy(MemorySegment.ofBuffer(early), 0, get.target(), 0, already);
        ByteBuffer body = get.target().asSlice(already).asByteBuffer();
        while (body.hasRemaining()) {
            if (channel.read(body) < 0) {
                throw new IOException(base + get.path() + " closed the connection mid-body");
            }
        }
    }

    /** Where the body starts (after the blank line), or -1 while the head is incomplete. */
    private static int headEnd(ByteBuffer head) {
        for (int i = 3; i < head.position(); i++) {
            if (head.get(i) == '\n' && head.get(i - 1) == '\r' && head.get(i - 2) == '\n' && head.get(i - 3) == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        threads.shutdownNow();
        for (List<SocketChannel> server : open.values()) {
            for (SocketChannel channel : server) {
                channel.close();
            }
        }
    }
}
