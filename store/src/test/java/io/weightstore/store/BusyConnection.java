package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.node.StorageNode;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * A connection at work on an insecure node, holding one of its places: a write whose payload stops
 * after its first bytes, so the node neither answers it nor takes it to make room for another
 * connection, until the write's stall window ends or this closes.
 */
final class BusyConnection implements AutoCloseable {
    /** Where the stalled write goes: past the objects the tests put, inside a test node's pool. */
    private static final long OFFSET = 48L << 20;

    /** How long a place a closed connection held may take to free on a busy machine. */
    private static final Duration PLACE_FREED = Duration.ofSeconds(10);

    private final Socket socket;

    private BusyConnection(Socket socket) {
        this.socket = socket;
    }

    /**
     * Takes a place on {@code node}; while the node still counts a connection a client closed a moment
     * before (its handler has yet to see the close), the node answers BUSY, and the hello is sent again.
     */
    static BusyConnection on(StorageNode node) throws Exception {
        long deadline = System.nanoTime() + PLACE_FREED.toNanos();
        while (true) {
            Socket socket = new Socket("127.0.0.1", node.port());
            Status answer;
            try {
                ByteBuffer hello = FrameCodec.encodeHello(node.poolUuid(), Ticket.none());
                socket.getOutputStream().write(hello.array(), 0, hello.remaining());
                answer = FrameCodec.decodeHelloReply(ByteBuffer.wrap(socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES))).status();
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
            if (answer == Status.BUSY && System.nanoTime() < deadline) {
                socket.close();
                Thread.sleep(20);
                continue;
            }
            return hold(socket, answer);
        }
    }

    private static BusyConnection hold(Socket socket, Status answer) throws Exception {
        try {
            assertThat(answer).isEqualTo(Status.OK);
            ByteBuffer write = FrameCodec.encode(new Request.Write(new Range(OFFSET, 1 << 20), Ticket.none()), null);
            socket.getOutputStream().write(write.array(), 0, write.remaining());
            socket.getOutputStream().write(new byte[16]);
            return new BusyConnection(socket);
        } catch (Exception | AssertionError e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
