package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node out of file descriptors cannot accept, and no retry cures that at once: it must pause
 * rather than spin a core and flood its log, and serve again once descriptors are free.
 */
class NodeOutOfDescriptorsTest {
    private static final long TICKS_PER_SECOND = 100;

    @TempDir
    Path tmp;

    @Test
    void aNodeThatCannotAcceptPausesInsteadOfSpinningAndServesOnceDescriptorsAreFree() throws Exception {
        Path log = tmp.resolve("node.log");
        try (ChildProcess node = ChildProcess.start(ProcessBuilder.Redirect.to(log.toFile()), "node",
                tmp.resolve("cluster").toString())) {
            int port = Integer.parseInt(node.detail());
            long open;
            try (var fds = Files.list(Path.of("/proc/" + node.pid() + "/fd"))) {
                open = fds.count();
            }
            long limit = open + 16;
            Process prlimit = new ProcessBuilder("prlimit", "--pid", String.valueOf(node.pid()), "--nofile=" + limit + ":" + limit)
                    .inheritIO().start();
            assertThat(prlimit.waitFor()).as("prlimit").isZero();

            List<Socket> flood = new ArrayList<>();
            try {
                // Silent connections: each accepted one holds a descriptor until its handshake's deadline.
                for (int i = 0; i < 64; i++) {
                    flood.add(new Socket("127.0.0.1", port));
                }
                Thread.sleep(300);
                long before = cpuTicks(node.pid());
                Thread.sleep(2_000);
                long spent = cpuTicks(node.pid()) - before;
                assertThat(spent).as("CPU ticks the node spent in 2 s out of descriptors").isLessThan(TICKS_PER_SECOND);
            } finally {
                for (Socket socket : flood) {
                    socket.close();
                }
            }
            assertThat(Files.readAllLines(log).stream().filter(line -> line.contains("accept failed")).count())
                    .as("warnings of failed accepts").isBetween(1L, 10L);
            assertThat(answeredWithin(port, Duration.ofSeconds(20)))
                    .as(() -> "a new connection, once descriptors are free, is answered; the node's log:\n" + readQuietly(log))
                    .isTrue();
        }
    }

    /**
     * Whether a new connection is answered within {@code time}. Right after the flood closes, the node drains its backlog
     * of the flood's connections and may accept one more while still at its limit, which it can only close (a reset): a
     * later one must be answered.
     */
    private static boolean answeredWithin(int port, Duration time) throws Exception {
        long end = System.nanoTime() + time.toNanos();
        while (true) {
            try {
                return BadInputTest.handshakeAnswered(port);
            } catch (SocketException reset) {
                if (System.nanoTime() > end) {
                    throw reset;
                }
                Thread.sleep(100);
            }
        }
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** utime + stime of the process, in clock ticks. */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
