package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Range;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose pool is a tmpfs that other files filled: a range of its pool nothing wrote is a hole,
 * and hashing one through the mapping would need a page the file system cannot give, which the
 * kernel answers with SIGBUS, the end of the process. A frame of checks over such a range, which any
 * reader may send, is refused; the node lives on.
 */
class NodeOnAFullTmpfsTest {
    private static final int BLOCK = TestCluster.CHECKSUM_BLOCK;

    @TempDir
    Path tmp;

    @Test
    void aCheckOfAnUnwrittenBlockOnAFullTmpfsIsRefusedAndTheNodeLives() throws Exception {
        // Room for the node's pool and its master's records, which the filler then takes.
        try (HugeTmpfs tmpfs = HugeTmpfs.mount(tmp.resolve("tmpfs"), (int) (TestCluster.NODE_CAPACITY >> 20) + 32);
                ChildProcess node = ChildProcess.start(ProcessBuilder.Redirect.to(tmp.resolve("node.log").toFile()), "node",
                        tmpfs.dir().resolve("cluster").toString())) {
            int port = Integer.parseInt(node.detail());
            UUID pool;
            try (PoolFile file = PoolFile.open(tmpfs.dir().resolve("cluster").resolve("node0.pool"), false)) {
                pool = file.uuid();
            }
            Filler.fill(tmpfs.dir().resolve("filler"));
            CRC32C zeros = new CRC32C();
            zeros.update(new byte[BLOCK]);
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                out.write(BadInputTest.hello(pool));
                assertThat(in.readNBytes(FrameCodec.HELLO_BYTES)).hasSize(FrameCodec.HELLO_BYTES);
                // A replica check (a read of nothing) of a block half-way into the fresh pool, which nothing ever wrote (its
                // start shares a huge page with the pool's header).
                long hole = TestCluster.NODE_CAPACITY / 2;
                ByteBuffer frame = FrameCodec.encode(new Request.Read(new Range(hole, 0),
                        List.of(new BlockCheck(hole, BLOCK, (int) zeros.getValue()))), null);
                out.write(frame.array(), frame.position(), frame.remaining());
                byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
                assertThat(header).as("an answer to the check").hasSize(FrameCodec.RESPONSE_HEADER_BYTES);
                assertThat(header[0]).as("its status").isEqualTo(Status.CORRUPT.code());
            }
            Thread.sleep(500);
            assertThat(node.isAlive()).as("the node process after the check, log: %s", Files.readString(tmp.resolve("node.log")))
                    .isTrue();
            assertThat(BadInputTest.handshakeAnswered(port)).as("a new connection is answered").isTrue();
        }
    }
}
