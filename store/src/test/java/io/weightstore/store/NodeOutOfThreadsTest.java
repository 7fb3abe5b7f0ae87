package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node that cannot start a thread for a connection (a container's limit on processes and threads
 * reached) drops that connection and accepts on: its accepting thread ending would leave the port
 * bound and the node heartbeating, with no connection ever answered. The limit is a real one, the
 * kernel's pids controller on the node's process, which holds for root as for anyone.
 */
class NodeOutOfThreadsTest {
    /** The hierarchy of cgroup v1's pids controller, where these machines mount it. */
    private static final Path PIDS_V1 = Path.of("/sys/fs/cgroup/pids");
    /** The unified hierarchy of cgroup v2, whose root may hand the pids controller to its children. */
    private static final Path UNIFIED = Path.of("/sys/fs/cgroup");

    @TempDir
    Path tmp;

    /** A directory under which a new cgroup has the pids controller: v1's, or v2's root with pids handed down. */
    private static Path pidsHierarchy() throws IOException {
        if (Files.isDirectory(PIDS_V1)) {
            return PIDS_V1;
        }
        Path controllers = UNIFIED.resolve("cgroup.controllers");
        if (Files.exists(controllers) && List.of(Files.readString(controllers).trim().split(" ")).contains("pids")) {
            Files.writeString(UNIFIED.resolve("cgroup.subtree_control"), "+pids");
            return UNIFIED;
        }
        throw new IllegalStateException("this test needs the kernel's pids cgroup controller, at " + PIDS_V1 + " (cgroup v1) or in "
                + controllers + " (cgroup v2), and root to use it");
    }

    @Test
    void aNodeOutOfThreadsDropsTheConnectionsItCannotServeAndServesOnceThreadsAreFree() throws Exception {
        Path log = tmp.resolve("node.log");
        Path group = pidsHierarchy().resolve("weightstore-test-" + UUID.randomUUID());
        Files.createDirectory(group);
        try (ChildProcess node = ChildProcess.start(ProcessBuilder.Redirect.to(log.toFile()), "node", tmp.resolve("cluster").toString())) {
            int port = Integer.parseInt(node.detail());
            Files.writeString(group.resolve("cgroup.procs"), Long.toString(node.pid()));
            long threads = Long.parseLong(Files.readString(group.resolve("pids.current")).trim());
            Files.writeString(group.resolve("pids.max"), Long.toString(threads + 2));
            List<Socket> flood = new ArrayList<>();
            try {
                // Each accepted connection wants a thread of its own: past the first two, none can start.
                for (int i = 0; i < 16; i++) {
                    flood.add(new Socket("127.0.0.1", port));
                }
                Thread.sleep(500);
            } finally {
                Files.writeString(group.resolve("pids.max"), "max");
                for (Socket socket : flood) {
                    socket.close();
                }
            }
            assertThat(BadInputTest.handshakeAnswered(port)).as("a new connection, once threads are free, is answered").isTrue();
            assertThat(Files.readAllLines(log).stream().filter(line -> line.contains("cannot serve a connection")).count())
                    .as("warnings of connections the node could not serve").isPositive();
        } finally {
            deleteOnceEmpty(group);
        }
    }

    /** Removes the cgroup once the killed child has left it: the kernel refuses while a process of it lives. */
    private static void deleteOnceEmpty(Path group) throws Exception {
        Awaits.until(Duration.ofSeconds(10), "the child process to leave " + group,
                () -> Files.readString(group.resolve("cgroup.procs")).isBlank());
        Files.delete(group);
    }
}
