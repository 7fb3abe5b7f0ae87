package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.wire.TestTls.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Whatever sizes one end writes in and the other reads in, the bytes that come out are the bytes
 * that went in, in order, on every kind of transport. Each kind keeps one connection for all tries,
 * so a try also starts wherever the previous one left the transport's buffers.
 */
class TransportStreamProperties {
    private static Path dir;
    private static final Map<Kind, Loopback.Ends> connections = new EnumMap<>(Kind.class);

    @BeforeContainer
    static void connect() throws Exception {
        dir = Files.createTempDirectory("transport-properties");
        TestTls tls = TestTls.create(dir);
        for (Kind kind : Kind.values()) {
            connections.put(kind, tls.connect(kind));
        }
    }

    @AfterContainer
    static void disconnect() throws IOException {
        for (Loopback.Ends ends : connections.values()) {
            ends.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Property(tries = 150)
    void anyWriteAndReadSizesDeliverTheSameStream(@ForAll Kind kind,
            @ForAll @Size(max = 12) List<@IntRange(max = 70_000) Integer> writes,
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 70_000) Integer> reads,
            @ForAll boolean directReads, @ForAll long seed) throws Exception {
        Loopback.Ends ends = connections.get(kind);
        assertStream(ends.clientEnd(), ends.serverEnd(), writes, reads, directReads, seed);
        assertStream(ends.serverEnd(), ends.clientEnd(), writes, reads, directReads, seed + 1);
    }

    private static void assertStream(Transport from, Transport to, List<Integer> writes, List<Integer> reads,
            boolean directReads, long seed) throws Exception {
        int total = writes.stream().mapToInt(Integer::intValue).sum();
        byte[] sent = new byte[total];
        new SplittableRandom(seed).nextBytes(sent);
        CompletableFuture<Void> written = Loopback.inThread("writer", () -> {
            int at = 0;
            for (int size : writes) {
                assertThat(from.write(ByteBuffer.wrap(sent, at, size))).isEqualTo(size);
                at += size;
            }
            return null;
        });
        byte[] received = new byte[total];
        for (int at = 0, i = 0; at < total; i++) {
            int size = Math.min(reads.get(i % reads.size()), total - at);
            ByteBuffer dst = directReads ? ByteBuffer.allocateDirect(size) : ByteBuffer.allocate(size);
            int n = to.read(dst);
            assertThat(n).isPositive().isEqualTo(dst.position());
            dst.flip().get(received, at, n);
            at += n;
        }
        written.get(30, TimeUnit.SECONDS);
        assertThat(Arrays.mismatch(received, sent)).isEqualTo(-1);
    }
}
