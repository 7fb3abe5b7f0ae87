package io.weightstore.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weightstore.store.pool.PoolPages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HugePageTmpfsTest {
    @TempDir
    Path work;

    @Test
    void poolsGoOnATmpfsInHugePagesThatIsGoneAfterClose() throws Exception {
        assumeRoot();
        Path point = work.resolve("pools");
        try (HugePageTmpfs tmpfs = HugePageTmpfs.mount(point)) {
            assertThat(tmpfs.dir()).isEqualTo(point);
            assertThat(PoolPages.of(point)).isEqualTo(new PoolPages("tmpfs", true));
            Files.write(point.resolve("pool"), new byte[4 << 20]);
            assertThat(mounted(point)).isTrue();
        }
        assertThat(mounted(point)).isFalse();
        assertThat(point).doesNotExist();
    }

    @Test
    void aMountLeftByAKilledBenchIsReplaced() throws Exception {
        assumeRoot();
        Path point = Files.createDirectory(work.resolve("pools"));
        run("mount", "-t", "tmpfs", "-o", "size=1M", "left-behind", point.toString());
        assertThat(PoolPages.of(point).hugePages()).isFalse();
        try (HugePageTmpfs tmpfs = HugePageTmpfs.mount(point)) {
            assertThat(PoolPages.of(tmpfs.dir()).hugePages()).isTrue();
        }
        assertThat(mounted(point)).isFalse();
    }

    @Test
    void closingTwiceUnmountsOnce() throws Exception {
        assumeRoot();
        HugePageTmpfs tmpfs = HugePageTmpfs.mount(work.resolve("pools"));
        tmpfs.close();
        tmpfs.close();
        assertThat(mounted(tmpfs.dir())).isFalse();
    }

    @Test
    void aFailedUnmountIsReportedWithWhatUmountSaid() throws Exception {
        assumeRoot();
        HugePageTmpfs tmpfs = HugePageTmpfs.mount(work.resolve("pools"));
        run("umount", tmpfs.dir().toString());
        assertThatThrownBy(tmpfs::close).isInstanceOf(IOException.class)
                .hasMessageStartingWith("umount --lazy " + tmpfs.dir() + " failed (exit ")
                .hasMessageContaining("not mounted");
    }

    private static void assumeRoot() {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root may mount a tmpfs");
    }

    private static boolean mounted(Path point) throws IOException {
        String escaped = point.toAbsolutePath().toString().replace(" ", "\\040");
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.split(" ")[4].equals(escaped));
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
