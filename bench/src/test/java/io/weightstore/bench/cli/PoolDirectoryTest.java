package io.weightstore.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.pool.PoolPages;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PoolDirectoryTest {
    @TempDir
    Path work;

    private final StringWriter err = new StringWriter();

    @Test
    void aChosenDirectoryIsUsedAsItIsAndNothingIsMounted() throws Exception {
        Path chosen = Files.createDirectory(work.resolve("chosen"));
        Path mountPoint = work.resolve("pools");
        try (PoolDirectory pools = PoolDirectory.of(chosen, mountPoint, new PrintWriter(err))) {
            assertThat(pools.dir()).isEqualTo(chosen);
            assertThat(mountPoint).doesNotExist();
        }
        assertThat(chosen).isDirectory();
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void withoutAChoiceThePoolsGetATmpfsInHugePagesUnmountedOnClose() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting needs root");
        Path mountPoint = work.resolve("pools");
        try (PoolDirectory pools = PoolDirectory.of(null, mountPoint, new PrintWriter(err))) {
            assertThat(pools.dir()).isEqualTo(mountPoint);
            assertThat(PoolPages.of(pools.dir())).isEqualTo(new PoolPages("tmpfs", true));
        }
        assertThat(mountPoint).doesNotExist();
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void whereNoTmpfsCanBeMountedThePoolsGoToDevShmAndStderrSaysWhy() throws Exception {
        // A regular file where the mount point's parent should be: the mount fails whoever runs it.
        Path file = Files.writeString(work.resolve("not-a-directory"), "x");
        try (PoolDirectory pools = PoolDirectory.of(null, file.resolve("pools"), new PrintWriter(err))) {
            assertThat(pools.dir()).isEqualTo(Path.of("/dev/shm"));
        }
        assertThat(err.toString()).startsWith("pools in /dev/shm, in 4 KiB pages: no tmpfs in huge pages could be mounted (")
                .contains(file.toString());
        assertThat(Path.of("/dev/shm")).isDirectory();
    }
}
