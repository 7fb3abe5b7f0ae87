package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.Range;
import io.weightstore.store.api.Stride;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.FrameCodec;
import io.weightstore.store.wire.Request;
import io.weightstore.store.wire.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    /** A block half-way into the fresh pool, which nothing ever wrote (its start shares a huge page with the pool's header). */
    private static final long HOLE = TestCluster.NODE_CAPACITY / 2;

    @Test
    void aCheckOfAnUnwrittenBlockOnAFullTmpfsIsRefusedAndTheNodeLives() throws Exception {
        CRC32C zeros = new CRC32C();
        zeros.update(new byte[BLOCK]);
        // A replica check: a read of nothing that hashes the block.
        assertThat(statusOnAFullTmpfs(new Request.Read(new Range(HOLE, 0), List.of(new BlockCheck(HOLE, BLOCK, (int) zeros.getValue())))))
                .isEqualTo(Status.CORRUPT.code());
    }

    @Test
    void aColumnShardOfUnwrittenRowsOnAFullTmpfsIsRefusedBeforeItsAnswerAndTheNodeLives() throws Exception {
        // No checks: the node gathers the rows through the mapping all the same.
        assertThat(statusOnAFullTmpfs(new Request.ReadStrided(new Stride(HOLE, 1024, 4096, 64), List.of())))
                .isEqualTo(Status.CORRUPT.code());
    }

    /**
     * Read through the mapping, a hole of a tmpfs takes a page of memory of its own: a reader asking for ranges nothing
     * wrote would fill the host with pages of zeros, 2 MiB at a time in huge pages.
     */
    @Test
    void checksAndColumnShardsOfUnwrittenRangesAreRefusedWithoutTakingMemory() throws Exception {
        try (HugeTmpfs tmpfs = HugeTmpfs.mount(tmp.resolve("tmpfs"), (int) (TestCluster.NODE_CAPACITY >> 20) + 32);
                TestCluster cluster = new TestCluster(tmpfs.dir().resolve("cluster"), 1)) {
            UUID pool = poolOf(cluster);
            FileStore store = Files.getFileStore(tmpfs.dir());
            long usedBefore = store.getTotalSpace() - store.getUnallocatedSpace();
            int port = cluster.node(0).port();
            // 16 MiB of rows, eight huge pages.
            assertThat(status(port, pool, new Request.ReadStrided(new Stride(HOLE, 1024, 64 << 10, 256), List.of())))
                    .isEqualTo(Status.CORRUPT.code());
            assertThat(status(port, pool, new Request.Read(new Range(HOLE + (20 << 20), 0), List.of(new BlockCheck(HOLE + (20 << 20),
                    BLOCK, 0))))).isEqualTo(Status.CORRUPT.code());
            assertThat(store.getTotalSpace() - store.getUnallocatedSpace()).as("bytes the tmpfs holds")
                    .isLessThan(usedBefore + (2 << 20));
            assertThat(BadInputTest.handshakeAnswered(port)).as("a new connection is answered").isTrue();
        }
    }

    /** Rows far apart are faulted in, not the gap between them: two rows at either end of a pool would fault in all of it. */
    @Test
    void aColumnShardFaultsInItsRowsAndNotTheGapsBetweenThem() throws Exception {
        try (HugeTmpfs tmpfs = HugeTmpfs.mount(tmp.resolve("tmpfs"), (int) (TestCluster.NODE_CAPACITY >> 20) + 32);
                TestCluster cluster = new TestCluster(tmpfs.dir().resolve("cluster"), 1)) {
            UUID pool = poolOf(cluster);
            long first = 4L << 20;
            long apart = 32L << 20;
            try (FileChannel file = FileChannel.open(cluster.pool(0), StandardOpenOption.WRITE)) {
                for (long row : new long[] {first, first + apart}) {
                    file.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), PoolFile.DATA_START + row);
                }
            }
            assertThat(status(cluster.node(0).port(), pool, new Request.ReadStrided(new Stride(first, 4, apart, 2), List.of())))
                    .as("the rows were written; the 32 MiB between them never were").isEqualTo(Status.OK.code());
        }
    }

    private static UUID poolOf(TestCluster cluster) throws Exception {
        try (PoolFile file = PoolFile.open(cluster.pool(0), false)) {
            return file.uuid();
        }
    }

    /** What the node on {@code port}, of {@code pool}, answers {@code request} with. */
    private static byte status(int port, UUID pool, Request request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(BadInputTest.hello(pool));
            assertThat(in.readNBytes(FrameCodec.HELLO_BYTES)).hasSize(FrameCodec.HELLO_BYTES);
            ByteBuffer frame = FrameCodec.encode(request, null);
            out.write(frame.array(), frame.position(), frame.remaining());
            byte[] header = in.readNBytes(FrameCodec.RESPONSE_HEADER_BYTES);
            assertThat(header).as("an answer to the request").hasSize(FrameCodec.RESPONSE_HEADER_BYTES);
            return header[0];
        }
    }

    /**
     * Sends {@code request} to a node whose pool a filler left no room to grow, and returns the status it answered
     * with, once its process was found alive and answering a new connection.
     */
    private byte statusOnAFullTmpfs(Request request) throws Exception {
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
            byte status = status(port, pool, request);
            Thread.sleep(500);
            String log = Files.readString(tmp.resolve("node.log"));
            assertThat(node.isAlive()).as("the node process after the request, log: %s", log).isTrue();
            assertThat(log).as("the node's log").doesNotContain("InternalError");
            assertThat(BadInputTest.handshakeAnswered(port)).as("a new connection is answered").isTrue();
            return status;
        }
    }
}
