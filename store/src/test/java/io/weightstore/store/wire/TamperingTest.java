package io.weightstore.store.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.TamperingProxy;
import io.weightstore.store.wire.TestTls.Kind;
import java.io.UncheckedIOException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A man in the middle who flips one bit of what the client sends after the handshake: TLS and MAC notice, plain does not. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TamperingTest {
    /** Well past any handshake and the switch, inside the first megabyte of data. */
    private static final long FLIP_AT = 100_000;
    private static final int SENT = 1 << 20;

    @TempDir
    static Path tmp;

    private static TestTls tls;

    @BeforeAll
    static void cluster() throws Exception {
        tls = TestTls.create(tmp);
    }

    private static Loopback.Ends throughProxy(Kind kind, AtomicReference<TamperingProxy> proxy) throws Exception {
        return Loopback.connect(TestTls.opener(kind, tls.server), TestTls.opener(kind, tls.client), target -> {
            try {
                proxy.set(TamperingProxy.flippingWhatClientsSend(((InetSocketAddress) target).getPort(), FLIP_AT));
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.get().port());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** The bytes the client sends: on the heap, so a writer left blocked by a failed read holds no memory that a test frees. */
    private static byte[] sent() {
        try (Arena arena = Arena.ofConfined()) {
            return TestTls.randomBytes(arena, SENT, 9).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** Sends SENT bytes from the client and reads them at the server: what the server got. */
    private static byte[] sendThrough(Loopback.Ends ends) throws IOException {
        byte[] bytes = sent();
        Loopback.inThread("writer", () -> ends.clientEnd().write(ByteBuffer.wrap(bytes)));
        ByteBuffer received = ByteBuffer.allocate(bytes.length);
        ends.serverEnd().readFully(received);
        return received.array();
    }

    @ParameterizedTest
    @EnumSource(value = Kind.class, names = {"TLS", "MAC", "MAC_POLY1305"})
    void aFlippedBitFailsTheRead(Kind kind) throws Exception {
        AtomicReference<TamperingProxy> proxy = new AtomicReference<>();
        try (Loopback.Ends ends = throughProxy(kind, proxy); TamperingProxy ignored = proxy.get()) {
            assertThatThrownBy(() -> sendThrough(ends)).isInstanceOf(SSLException.class);
        }
    }

    @Test
    void theMacFailureSaysWhichChunkAndWhy() throws Exception {
        AtomicReference<TamperingProxy> proxy = new AtomicReference<>();
        try (Loopback.Ends ends = throughProxy(Kind.MAC, proxy); TamperingProxy ignored = proxy.get()) {
            assertThatThrownBy(() -> sendThrough(ends)).isInstanceOf(SSLException.class)
                    .hasMessageMatching("chunk 0 \\(262144 bytes\\) from /127\\.0\\.0\\.1:\\d+ \\(reader reader-1\\) failed its"
                            + " authentication tag: it was altered, replayed or reordered in transit");
            // Nothing more is read from a connection that carried a forged chunk.
            assertThatThrownBy(() -> ends.serverEnd().read(ByteBuffer.allocate(1))).isInstanceOf(IOException.class);
        }
    }

    @Test
    void plainBytesArriveAlteredAndNobodyKnows() throws Exception {
        AtomicReference<TamperingProxy> proxy = new AtomicReference<>();
        try (Loopback.Ends ends = throughProxy(Kind.PLAIN, proxy); TamperingProxy ignored = proxy.get()) {
            assertThat(Arrays.mismatch(sendThrough(ends), sent())).isEqualTo((int) FLIP_AT);
        }
    }
}
