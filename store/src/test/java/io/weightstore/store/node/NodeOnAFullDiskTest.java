package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose pool is on a disk that fills up after it started (its start refused a pool larger
 * than the free space, but other files may take it later): the write that finds no room fails on its
 * own connection, the node serves on, and the same write succeeds once there is room. The disk is a
 * 16 MiB ext4 image mounted by loop device (needs root and mkfs.ext4), removed afterwards.
 */
class NodeOnAFullDiskTest {
    private static final int CAPACITY = 4 << 20;

    @TempDir
    Path tmp;

    private Path disk;
    private MasterServer master;
    private StorageNode node;

    @BeforeEach
    void mountDisk() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/mkfs.ext4")) && "root".equals(System.getProperty("user.name")),
                "needs root and mkfs.ext4 to mount a small ext4 image");
        Path image = tmp.resolve("disk.img");
        disk = Files.createDirectory(tmp.resolve("disk"));
        run("truncate", "-s", "16M", image.toString());
        run("/usr/sbin/mkfs.ext4", "-q", image.toString());
        run("mount", "-o", "loop", image.toString(), disk.toString());
    }

    @AfterEach
    void stopAndUnmount() throws Exception {
        if (node != null) {
            node.close();
        }
        if (master != null) {
            master.close();
        }
        if (disk != null && Files.isDirectory(disk)) {
            run("umount", disk.toString());
        }
    }

    @Test
    void aWriteThatFindsTheDiskFullFailsAndTheNodeServesOn() throws Exception {
        master = MasterServer.start(tmp.resolve("master"), TestCluster.config(), "127.0.0.1", 0, MasterSecurity.insecure());
        node = StorageNode.start("127.0.0.1:" + master.port(), NodeOptions.loopback(disk.resolve("pool"), CAPACITY));
        Path filler = disk.resolve("filler");
        fill(filler);

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
        ByteBuffer hello = FrameCodec.encodeHello(Ticket.none());
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

    /** Writes {@code file} until the file system has no block left. */
    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[256 << 10];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException full) {
            assertThat(full).hasMessageContaining("No space left");
        }
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
