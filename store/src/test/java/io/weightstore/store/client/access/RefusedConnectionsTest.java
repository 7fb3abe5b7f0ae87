package io.weightstore.store.client.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.FrameException;
import io.weightstore.store.wire.Response;
import io.weightstore.store.wire.Status;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which refusals leave a connection fit for the next exchange: a node that answers its first request with a
 * refusal scripted by the test and every later one with its bytes, so a second read shows whether the
 * client took a connection out of step back into its pool.
 */
class RefusedConnectionsTest {
    private static final int BYTES = 64;

    /** How the node answers its first request. */
    private enum FirstAnswer {
        CORRUPT_REFUSAL,
        REFUSAL_WITH_STRAY_PAYLOAD
    }

    private ServerSocket server;
    private DeadlineTimer timer;
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile FirstAnswer first;
    private final AtomicBoolean refused = new AtomicBoolean();

    @BeforeEach
    void start() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        timer = new DeadlineTimer("test-deadlines");
        Thread.ofVirtual().start(this::acceptConnections);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        timer.close();
    }

    @Test
    void aConnectionIsKeptAfterARefusalThatLeavesItInStep() throws IOException {
        first = FirstAnswer.CORRUPT_REFUSAL;
        try (SocketNodeAccess node = access()) {
            assertRefused(node, StoreException.Code.CORRUPT);
            assertThat(read(node)).isEqualTo(expected());
        }
        assertThat(accepted).hasValue(1);
    }

    @Test
    void aRefusalFollowedByPayloadBytesIsAProtocolErrorAndItsConnectionIsNotReused() throws IOException {
        first = FirstAnswer.REFUSAL_WITH_STRAY_PAYLOAD;
        try (SocketNodeAccess node = access()) {
            assertRefused(node, StoreException.Code.PROTOCOL);
            assertThat(read(node)).isEqualTo(expected());
        }
        assertThat(accepted).hasValue(2);
    }

    private SocketNodeAccess access() {
        return new SocketNodeAccess("127.0.0.1", server.getLocalPort(), UUID.randomUUID(), Optional.empty(), Ticket::none,
                TransferDeadlines.defaults(), timer, CongestionControl.CUBIC);
    }

    private static void assertRefused(SocketNodeAccess node, StoreException.Code code) {
        assertThatThrownBy(() -> read(node)).isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.code()).isEqualTo(code));
    }

    private static byte[] read(SocketNodeAccess node) throws IOException {
        MemorySegment dst = Arena.ofAuto().allocate(BYTES);
        node.read(List.of(new Range(0, BYTES)), List.of(), dst, OnBusy.FAIL_AT_ONCE);
        return dst.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] expected() {
        byte[] bytes = new byte[BYTES];
        for (int i = 0; i < BYTES; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }

    private void acceptConnections() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                accepted.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException e) {
                return; // closed by the test
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            byte[] hello = new byte[FrameCodec.HELLO_BYTES];
            in.readFully(hello);
            in.readFully(new byte[FrameCodec.decodeHelloHeader(ByteBuffer.wrap(hello)).restLength()]);
            out.write(FrameCodec.encodeHelloReply(Status.OK).array());
            while (true) {
                byte[] header = new byte[FrameCodec.REQUEST_HEADER_BYTES];
                in.readFully(header);
                in.readFully(new byte[FrameCodec.decodeRequestHeader(ByteBuffer.wrap(header)).bodyLength()]);
                if (!refused.compareAndSet(false, true)) {
                    send(out, Response.ok(BYTES));
                    out.write(expected());
                    continue;
                }
                switch (first) {
                    case CORRUPT_REFUSAL -> send(out, Response.refused(Status.CORRUPT, "a block does not match"));
                    case REFUSAL_WITH_STRAY_PAYLOAD -> {
                        send(out, new Response(Status.CORRUPT, "a block does not match", 16));
                        out.write(new byte[16]);
                    }
                }
            }
        } catch (IOException | FrameException e) {
            // The client went, or the test ended.
        }
    }

    private static void send(OutputStream out, Response response) throws IOException {
        ByteBuffer frame = FrameCodec.encode(response, ByteBuffer.allocate(FrameCodec.RESPONSE_HEADER_BYTES + FrameCodec.MAX_MESSAGE));
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
    }
}
