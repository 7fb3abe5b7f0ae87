package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.master.MasterConfig;
import io.weightstore.store.master.MasterServer;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.store.security.MasterSecurity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a node says as it starts: where its pool is, in which pages, and, on a tmpfs in 4 KiB pages, what serves faster; and
 * the TCP congestion control its answers go out under.
 */
class NodeStartLineTest {
    private static final String HINT = "a tmpfs mounted with huge=within_size serves faster";

    @TempDir
    Path tmp;

    @Test
    void aNodeNamesThePagesOfItsPoolAndPointsToHugePagesWhenTheyAreSmall() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm), "no writable /dev/shm here");
        Path dir = Files.createTempDirectory(shm, "weightstore-start-line-");
        Path pool = dir.resolve("pool");
        try (MasterServer master = MasterServer.start(tmp.resolve("master"), MasterConfig.defaults(), "127.0.0.1", 0,
                MasterSecurity.insecure())) {
            CliProcess node = CliProcess.start(tmp.resolve("node.log"), "node", "--insecure", "--master", "127.0.0.1:" + master.port(),
                    "--pool", pool.toString(), "--capacity", "64M", "--bind", "127.0.0.1", "--advertise", "127.0.0.1", "--port", "0");
            try {
                Awaits.until(Duration.ofSeconds(60), "the node to report serving", () -> node.output().contains(" serving "));
                // Whether this machine's /dev/shm has huge pages is PoolPagesTest's to check; this one checks what the node says.
                PoolPages pages = PoolPages.of(pool);
                assertThat(pages.fileSystem()).isEqualTo(Files.getFileStore(pool).type());
                assertThat(node.output()).contains("serving " + pool + " (64.0 MiB, " + pages + ") on 127.0.0.1:")
                        .as("run with the launcher's flags, the node reaches its socket to set cubic").contains(", INSECURE, TCP cubic");
                // The hint is logged before the serving line, so it is there by now if it is coming at all.
                if (pages.smallTmpfsPages()) {
                    assertThat(node.output()).contains(HINT);
                } else {
                    assertThat(node.output()).doesNotContain(HINT);
                }
            } finally {
                node.stop();
            }
        } finally {
            try (Stream<Path> left = Files.list(dir)) {
                for (Path file : left.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }
}
