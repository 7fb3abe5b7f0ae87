package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.security.Credentials;
import io.weightstore.store.wire.TestTls.Kind;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Bytes cross every kind of transport unchanged, in both directions, whatever the sizes of writes and reads. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TransportRoundTripTest {
    private static final int RECORD = 16 << 10;

    @TempDir
    static Path tmp;

    private static TestTls tls;

    @BeforeAll
    static void cluster() throws Exception {
        tls = TestTls.create(tmp);
    }

    static Stream<Arguments> sizes() {
        long[] sizes = {0, 1, RECORD - 1, RECORD, RECORD + 1, 300_007, 64 << 20};
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            for (long size : sizes) {
                cases.add(Arguments.of(kind, size));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, {1} bytes")
    @MethodSource("sizes")
    void bytesCrossBothWaysIntoOffHeapMemory(Kind kind, long size) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind); Arena arena = Arena.ofShared()) {
            MemorySegment up = TestTls.randomBytes(arena, size, 1);
            MemorySegment down = TestTls.randomBytes(arena, size, 2);

            assertCrosses(ends.clientEnd(), ends.serverEnd(), up, arena, Integer.MAX_VALUE);
            assertCrosses(ends.serverEnd(), ends.clientEnd(), down, arena, Integer.MAX_VALUE);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void readsIntoBuffersSmallerAndLargerThanARecordGetEveryByte(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind); Arena arena = Arena.ofShared()) {
            MemorySegment bytes = TestTls.randomBytes(arena, 1_000_003, 3);
            for (int piece : new int[] {3, 100, RECORD - 7, RECORD, RECORD + 7, 1 << 20, 4 << 20}) {
                assertCrosses(ends.serverEnd(), ends.clientEnd(), bytes, arena, piece);
                assertCrosses(ends.clientEnd(), ends.serverEnd(), bytes, arena, piece);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void headerSizedReadsOnHeapSeeTheSameStream(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            byte[] frame = "a response header, then its message".getBytes();
            ends.serverEnd().write(ByteBuffer.wrap(frame));
            ByteBuffer header = ByteBuffer.allocate(12);
            ends.clientEnd().readFully(header);
            ByteBuffer rest = ByteBuffer.allocate(frame.length - 12);
            ends.clientEnd().readFully(rest);

            assertThat(new String(header.array()) + new String(rest.array())).isEqualTo(new String(frame));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void sendFileDeliversTheFilesBytesForRangesAtOddOffsets(Kind kind) throws Exception {
        Path file = tmp.resolve("pool-" + kind);
        try (Arena arena = Arena.ofShared(); Loopback.Ends ends = tls.connect(kind)) {
            MemorySegment content = TestTls.randomBytes(arena, 3 * 1_048_576 + 17, 4);
            Files.write(file, content.toArray(ValueLayout.JAVA_BYTE));
            long size = content.byteSize();
            long[][] ranges = {{0, 0}, {1, 1}, {7, 300_001}, {12_345, 1_000_003}, {3, size - 3}, {size - 5, 5}};
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                // As a node sends from its pool, which it keeps mapped, and as a caller without a mapping does.
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                for (boolean withMapping : new boolean[] {true, false}) {
                    for (long[] range : ranges) {
                        CompletableFuture<Void> sent = Loopback.inThread("sendfile", () -> {
                            if (withMapping) {
                                ends.serverEnd().sendFile(channel, range[0], mapped.asSlice(range[0], range[1]));
                            } else {
                                ends.serverEnd().sendFile(channel, range[0], range[1]);
                            }
                            return null;
                        });
                        MemorySegment received = arena.allocate(Math.max(range[1], 1)).asSlice(0, range[1]);
                        receive(ends.clientEnd(), received, Integer.MAX_VALUE);
                        sent.get(60, TimeUnit.SECONDS);
                        assertThat(received.mismatch(content.asSlice(range[0], range[1])))
                                .as("range at %d of %d bytes, %s", range[0], range[1], withMapping ? "mapped" : "unmapped")
                                .isEqualTo(-1);
                    }
                }
                if (kind != Kind.PLAIN) {
                    // Plain sendfile just stops at the end; the others refuse a range that is not there before sending.
                    assertThatThrownBy(() -> ends.serverEnd().sendFile(channel, size - 10, 11)).isInstanceOf(EOFException.class)
                            .hasMessageContaining("file");
                    assertThat(Files.size(file)).isEqualTo(size);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void bothEndsSeeWhoTheOtherProvedToBe(Kind kind) throws Exception {
        try (Loopback.Ends ends = tls.connect(kind)) {
            assertThat(Credentials.peerIdentity(ends.clientEnd().session().orElseThrow())).isEqualTo(tls.node.identity());
            assertThat(Credentials.peerIdentity(ends.serverEnd().session().orElseThrow())).isEqualTo(tls.reader.identity());
            assertThat(ends.clientEnd().session().orElseThrow().getProtocol()).isEqualTo("TLSv1.3");
            assertThat(ends.clientEnd().peer()).endsWith("(node node-1)");
            assertThat(ends.serverEnd().peer()).endsWith("(reader reader-1)");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"MAC", "MAC_POLY1305"})
    void bothEndsOfAMacConnectionTagWithTheNodesChoice(Kind kind) throws Exception {
        String nodes = kind == Kind.MAC ? "AES-GMAC" : "Poly1305";
        try (Loopback.Ends ends = tls.connect(kind)) {
            assertThat(((MacTransport) ends.serverEnd()).tagsInUse()).isEqualTo(nodes);
            assertThat(((MacTransport) ends.clientEnd()).tagsInUse()).isEqualTo(nodes);
        }
    }

    /** Writes {@code bytes} on {@code from} in its own thread and checks {@code to} receives exactly them, reading at most {@code piece} at a time. */
    private static void assertCrosses(Transport from, Transport to, MemorySegment bytes, Arena arena, int piece) throws Exception {
        CompletableFuture<Void> written = Loopback.inThread("writer", () -> {
            from.writeFully(bytes.asByteBuffer());
            return null;
        });
        MemorySegment received = arena.allocate(Math.max(bytes.byteSize(), 1), 64).asSlice(0, bytes.byteSize());
        receive(to, received, piece);
        written.get(60, TimeUnit.SECONDS);
        assertThat(received.mismatch(bytes)).as("first differing byte, reading %d at a time", piece).isEqualTo(-1);
    }

    /** Fills {@code into} from {@code transport}, each read into at most {@code piece} bytes; no read may return 0. */
    static void receive(Transport transport, MemorySegment into, int piece) throws IOException {
        for (long done = 0; done < into.byteSize(); ) {
            ByteBuffer dst = into.asSlice(done, Math.min(piece, into.byteSize() - done)).asByteBuffer();
            int n = transport.read(dst);
            assertThat(n).as("read at %d of %d", done, into.byteSize()).isPositive().isEqualTo(dst.position());
            done += n;
        }
    }
}
