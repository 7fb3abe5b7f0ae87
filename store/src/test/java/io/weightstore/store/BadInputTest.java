package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.Stride;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.grpc.MasterEndpoint;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Op;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** Garbage and broken frames on the node and master ports: a clear answer or a closed connection, and the servers keep serving. */
class BadInputTest {
    @TempDir
    Path tmp;

    private TestCluster cluster;
    private StoreClient client;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;

    @BeforeEach
    void start() throws IOException {
        cluster = new TestCluster(tmp, 1);
        client = cluster.client();
        data = Bytes.random(arena, 3 * TestCluster.SLICE, 9);
        client.put("probe", data, PutOptions.defaults());
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        arena.close();
    }

    private void assertStillServes() throws IOException {
        assertThat(Bytes.equal(Bytes.readWhole(client, "probe", arena), data)).isTrue();
    }

    private Socket node() throws IOException {
        Socket socket = new Socket("127.0.0.1", cluster.node(0).port());
        socket.setSoTimeout(5000);
        return socket;
    }

    /** A plaintext hello with no ticket, as an insecure cluster takes, for {@code pool}. */
    static byte[] hello(UUID pool) {
        return FrameCodec.encodeHello(pool, Ticket.none()).array();
    }

    /** Whether the node on {@code port} answers a hello within 20 s (one for another pool: a refusal is an answer too). */
    static boolean handshakeAnswered(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(hello(UUID.randomUUID()));
            return socket.getInputStream().readNBytes(8).length == 8;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    /** Reads the node's answer until it closes the connection or a response header arrives. */
    private static int responseStatus(InputStream in) throws IOException {
        byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
        return header.length < FrameCodec.RESPONSE_HEADER_BYTES ? -1 : header[0];
    }

    @Test
    void randomBytesOnTheNodePortCloseOnlyThatConnection() throws IOException {
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) {
            try (Socket socket = node()) {
                byte[] garbage = new byte[1 + random.nextInt(4096)];
                random.nextBytes(garbage);
                socket.getOutputStream().write(garbage);
                socket.shutdownOutput();
                socket.getInputStream().readAllBytes();
            } catch (SocketException e) {
                // A node that closes with our garbage unread resets the connection: that is the refusal.
            }
        }
        assertStillServes();
    }

    @Test
    void wrongMagicOrVersionIsRefusedInTheHandshake() throws IOException {
        try (Socket socket = node()) {
            socket.getOutputStream().write(ByteBuffer.allocate(8).putInt(0x12345678).putShort((short) 1).putShort((short) 0).array());
            byte[] reply = socket.getInputStream().readNBytes(8);
            assertThat(ByteBuffer.wrap(reply).get(6)).isEqualTo(Status.BAD_REQUEST.code());
            assertThat(socket.getInputStream().read()).isEqualTo(-1);
        }
        try (Socket socket = node()) {
            socket.getOutputStream().write(ByteBuffer.allocate(8).putInt(FrameCodec.MAGIC).putShort((short) 99).putShort((short) 0).array());
            assertThat(ByteBuffer.wrap(socket.getInputStream().readNBytes(8)).get(6)).isEqualTo(Status.VERSION.code());
        }
        assertStillServes();
    }

    @Test
    void unknownOpAndOversizedBodyAreRefusedAndTheConnectionClosed() throws IOException {
        for (byte[] frame : List.of(
                ByteBuffer.allocate(8).put((byte) 99).put((byte) 0).putShort((short) 0).putInt(0).array(),
                ByteBuffer.allocate(8).put(Op.READ.code()).put((byte) 0).putShort((short) 0).putInt(Integer.MAX_VALUE).array(),
                ByteBuffer.allocate(8 + 4).put(Op.READ_RANGES.code()).put((byte) 0).putShort((short) 0).putInt(4)
                        .putInt(1_000_000).array())) {
            try (Socket socket = node()) {
                OutputStream out = socket.getOutputStream();
                out.write(hello(cluster.node(0).poolUuid()));
                socket.getInputStream().readNBytes(8);
                out.write(frame);
                assertThat(responseStatus(socket.getInputStream())).isEqualTo(Status.BAD_REQUEST.code());
                socket.getInputStream().readAllBytes();
            }
        }
        assertStillServes();
    }

    /** Just past the end; and a length so large that its deadline, at the slowest rate waited for, overflowed a long of nanoseconds. */
    @ParameterizedTest
    @ValueSource(longs = {20, Long.MAX_VALUE - TestCluster.NODE_CAPACITY})
    void readPastThePoolIsRefusedAndTheConnectionStaysUsable(long length) throws IOException {
        try (Socket socket = node()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(hello(cluster.node(0).poolUuid()));
            in.readNBytes(8);
            long capacity = TestCluster.NODE_CAPACITY;
            out.write(ByteBuffer.allocate(8 + 20).put(Op.READ.code()).put((byte) 0).putShort((short) 0).putInt(20)
                    .putLong(capacity - 10).putLong(length).putInt(0).array());
            byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
            assertThat(header[0]).isEqualTo(Status.OUT_OF_RANGE.code());
            String message = new String(in.readNBytes(ByteBuffer.wrap(header).getShort(2)));
            assertThat(message).contains("outside the pool");
            out.write(ByteBuffer.allocate(8 + 20).put(Op.READ.code()).put((byte) 0).putShort((short) 0).putInt(20)
                    .putLong(0).putLong(16).putInt(0).array());
            byte[] ok = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
            assertThat(ok[0]).isEqualTo(Status.OK.code());
            assertThat(ByteBuffer.wrap(ok).getLong(4)).isEqualTo(16);
            assertThat(in.readNBytes(16)).hasSize(16);
        }
        assertStillServes();
    }

    @Test
    void aStridedReadOfAllTheRowsAFrameMayNameOfNoBytesIsAnsweredWithNone() throws IOException {
        try (Socket socket = node()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(hello(cluster.node(0).poolUuid()));
            in.readNBytes(8);
            ByteBuffer frame = FrameCodec.encode(new Request.ReadStrided(new Stride(0, 0, 0, Integer.MAX_VALUE), List.of()), null);
            out.write(frame.array(), 0, frame.remaining());
            byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
            assertThat(header[0]).isEqualTo(Status.OK.code());
            assertThat(ByteBuffer.wrap(header).getLong(4)).isZero();
        }
        assertStillServes();
    }

    @Test
    void frameCutShortDoesNotHarmTheNode() throws IOException {
        try (Socket socket = node()) {
            socket.getOutputStream().write(hello(cluster.node(0).poolUuid()));
            socket.getInputStream().readNBytes(8);
            socket.getOutputStream().write(new byte[] {Op.WRITE.code(), 0, 0, 0, 0, 0, 0, 16, 0, 0});
        }
        assertStillServes();
    }

    @Test
    void garbageOnTheMasterPortDoesNotHarmIt() throws IOException {
        Random random = new Random(5);
        for (int i = 0; i < 10; i++) {
            try (Socket socket = new Socket("127.0.0.1", cluster.masterPort())) {
                socket.setSoTimeout(5000);
                byte[] garbage = new byte[1 + random.nextInt(2048)];
                random.nextBytes(garbage);
                socket.getOutputStream().write(garbage);
                socket.shutdownOutput();
                socket.getInputStream().readAllBytes();
            } catch (SocketException e) {
                // The master may reset a connection that is not HTTP/2; what matters is that it keeps serving.
            }
        }
        try (Socket socket = new Socket("127.0.0.1", cluster.masterPort())) {
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            socket.shutdownOutput();
            socket.setSoTimeout(5000);
            socket.getInputStream().readAllBytes();
        }
        assertThat(client.status().objects()).isEqualTo(1);
        assertStillServes();
    }

    @Test
    void aConnectionThatNeverSendsItsPrefaceIsClosedByTheMaster() throws IOException {
        try (Socket silent = new Socket("127.0.0.1", cluster.masterPort())) {
            silent.setSoTimeout((int) MasterEndpoint.HANDSHAKE_TIMEOUT.multipliedBy(3).toMillis());
            InputStream in = silent.getInputStream();
            // The master's own HTTP/2 settings come first; then, without the client's preface, the end.
            while (in.read() >= 0) {
                // its settings frame
            }
        }
        assertStillServes();
    }
}
