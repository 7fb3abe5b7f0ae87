package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.Filler;
import io.weightstore.store.LoopDisk;
import io.weightstore.store.TestCluster;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.security.MasterSecurity;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose pool is on a disk that fills up after it started (its start refused a pool larger
 * than the free space, but other files may take it later): the write that finds no room fails on its
 * own connection, the node serves on, and the same write succeeds once there is room.
 */
class NodeOnAFullDiskTest {
    private static final int CAPACITY = 4 << 20;

    @TempDir
    Path tmp;

    private LoopDisk disk;
    private MasterServer master;
    private StorageNode node;

    @BeforeEach
    void mountDisk() throws Exception {
        disk = LoopDisk.mount(tmp, 16);
    }

    @AfterEach
    void stopAndUnmount() throws Exception {
        if (node != null) {
            node.close();
        }
        if (master != null) {
            master.close();
        }
        if (disk != null) {
            disk.close();
        }
    }

    @Test
    void aWriteThatFindsTheDiskFullFailsAndTheNodeServesOn() throws Exception {
        master = MasterServer.start(tmp.resolve("master"), TestCluster.config(), "127.0.0.1", 0, MasterSecurity.insecure());
        node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(disk.dir().resolve("pool"), CAPACITY));
        Path filler = disk.dir().resolve("filler");
        Filler.fill(filler);

        try (Socket writer = connect()) {
            write(writer, CAPACITY);
            assertThat(endedByPeer(writer)).as("the node ended the write's connection").isTrue();
        }

        Files.delete(filler);
        try (Socket writer = connect()) {
            write(writer, CAPACITY);
            ByteBuffer header = ByteBuffer.wrap(writer.getInputStream().readNBytes(FrameCodec.RESPONSE_HEADER_BYTES));
            assertThat(FrameCodec.decodeResponseHeader(header).status()).as("the same write once there is room").isEqualTo(Status.OK);
        }
    }

    private Socket connect() throws Exception {
        Socket socket = new Socket("127.0.0.1", node.port());
        socket.setSoTimeout(10_000);
        ByteBuffer hello = FrameCodec.encodeHello(node.poolUuid(), Ticket.none());
        socket.getOutputStream().write(hello.array(), 0, hello.remaining());
        Status status = FrameCodec.decodeHelloReply(ByteBuffer.wrap(socket.getInputStream().readNBytes(FrameCodec.HELLO_BYTES))).status();
        assertThat(status).isEqualTo(Status.OK);
        return socket;
    }

    /** A write of {@code length} bytes at the start of the pool; the node may close the connection before it took them all. */
    private static void write(Socket socket, int length) {
        ByteBuffer frame = FrameCodec.encode(new Request.Write(new Range(0, length), Ticket.none()), null);
        try {
            OutputStream out = socket.getOutputStream();
            out.write(frame.array(), 0, frame.remaining());
            byte[] piece = new byte[64 << 10];
            Arrays.fill(piece, (byte) 0x5a);
            for (int done = 0; done < length; done += piece.length) {
                out.write(piece);
            }
        } catch (IOException closedUnderUs) {
            // The node refused the rest: what the test looks at is what it answers, below.
        }
    }

    /** Whether the peer closed: an end of stream, or a reset when it closed with our bytes still unread. */
    private static boolean endedByPeer(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketException e) {
            return e.getMessage().contains("Connection reset");
        }
    }
}
