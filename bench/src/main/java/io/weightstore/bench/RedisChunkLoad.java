package io.weightstore.bench;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * How a Redis-backed loader fetches: the files are stored in Redis as 64 MiB chunks, then fetched
 * with parallel GETs through a connection pool and copied into off-heap memory.
 */
final class RedisChunkLoad implements AutoCloseable {
    static final int CHUNK = 64 << 20;
    private static final int SOCKET_TIMEOUT_MILLIS = 60_000;

    private final PeerProcess redis;
    private final JedisPooled client;
    private final ExecutorService pool;
    private final int connections;

    private RedisChunkLoad(PeerProcess redis, int connections) {
        this.redis = redis;
        this.connections = connections;
        // A 64 MiB value on a shared 2-core machine can take longer than Jedis's default of 2 s to move.
        this.client = new JedisPooled(new HostAndPort("127.0.0.1", redis.port()), DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(SOCKET_TIMEOUT_MILLIS).build());
        this.pool = Executors.newFixedThreadPool(connections, Thread.ofPlatform().daemon().factory());
    }

    /** Starts redis-server on loopback with persistence off; null when Redis is not installed. */
    static RedisChunkLoad start(Path work, int connections) throws IOException {
        Path binary = PeerProcess.find("redis-server");
        if (binary == null) {
            return null;
        }
        int port = PeerProcess.freePort();
        Path dir = Files.createDirectories(work.resolve("redis"));
        PeerProcess redis = PeerProcess.start("redis", List.of(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dir.toString(), "--maxmemory", "0"), port,
                dir.resolve("stdout.log"));
        return new RedisChunkLoad(redis, connections);
    }

    private static byte[] key(String file, long chunk) {
        return (file + "#" + chunk).getBytes(StandardCharsets.UTF_8);
    }

    /** Stores every file as chunks (not timed: this is the import). */
    void store(Path root, List<String> files) throws IOException {
        byte[] chunk = new byte[CHUNK];
        for (String file : files) {
            try (FileChannel channel = FileChannel.open(root.resolve(file), StandardOpenOption.READ)) {
                long size = channel.size();
                for (long start = 0; start < size; start += CHUNK) {
                    int length = (int) Math.min(CHUNK, size - start);
                    ByteBuffer buffer = ByteBuffer.wrap(chunk, 0, length);
                    while (buffer.hasRemaining()) {
                        channel.read(buffer, start + buffer.position());
                    }
                    client.set(key(file, start / CHUNK), length == CHUNK ? chunk : Arrays.copyOf(chunk, length));
                }
            }
        }
    }

    /** Fetches every file with parallel GETs, packing each file into {@code dst} (reused for each file). */
    void fetch(List<String> files, List<Long> sizes, MemorySegment dst) throws Exception {
        List<Future<?>> gets = new ArrayList<>();
        for (int f = 0; f < files.size(); f++) {
            String file = files.get(f);
            for (long start = 0; start < sizes.get(f); start += CHUNK) {
                long offset = start;
                gets.add(pool.submit(() -> {
                    byte[] value = client.get(key(file, offset / CHUNK));
                    MemorySegment.copy(value, 0, dst, ValueLayout.JAVA_BYTE, offset, value.length);
                    return null;
                }));
            }
        }
        for (Future<?> get : gets) {
            get.get();
        }
    }

    int connections() {
        return connections;
    }

    @Override
    public void close() {
        pool.shutdownNow();
        client.close();
        redis.close();
    }
}
