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

/**
 * A connection at work on an insecure node, holding one of its places: a write whose payload stops
 * after its first bytes, so the node neither answers it nor takes it to make room for another
 * connection, until the write's stall window ends or this closes.
 */
final class BusyConnection implements AutoCloseable {
    /** Where the stalled write goes: past the objects the tests put, inside a test node's pool. */
    private static final long OFFSET = 48L << 20;

    private final Socket socket;

    private BusyConnection(Socket socket) {
        this.socket = socket;
    }

    static BusyConnection on(StorageNode node) throws Exception {
        Socket socket = new Socket("127.0.0.1", node.port());
        try {
            ByteBuffer hello = FrameCodec.encodeHello(node.poolUuid(), Ticket.none());
            socket.getOutputStream().write(hello.array(), 0, hello.remaining());
            assertThat(FrameCodec.decodeHelloReply(ByteBuffer.wrap(socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES)))
                    .status()).isEqualTo(Status.OK);
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
