package io.weightstore.store.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.api.StoreException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded store's one-process-at-a-time lock, held as the OS's record lock on its LOCK file. */
class HolderLockTest {
    @TempDir
    Path tmp;

    /** Whether another process can take the record lock on {@code file} now, as a second weightstore process would try. */
    private static boolean anotherProcessCanLock(Path file) throws Exception {
        Process probe = new ProcessBuilder("python3", "-c",
                "import fcntl, sys; f = open(sys.argv[1], 'r+'); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", file.toString())
                .redirectErrorStream(true).start();
        return probe.waitFor() == 0;
    }

    private static String readByAnotherProcess(Path file) throws Exception {
        Process cat = new ProcessBuilder("cat", file.toString()).start();
        String content = new String(cat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(cat.waitFor()).isZero();
        return content;
    }

    @Test
    void aSecondOpenInTheSameProcessIsRefusedAndLeavesTheLockHeld() throws Exception {
        Path dir = tmp.resolve("store");
        Path file = dir.resolve(HolderLock.FILE);
        try (HolderLock first = HolderLock.acquire(dir)) {
            // Read by another process: one of this process's own, opened and closed, would end the lock itself.
            String holder = readByAnotherProcess(file);
            assertThat(holder).startsWith("pid " + ProcessHandle.current().pid());
            assertThatThrownBy(() -> HolderLock.acquire(dir)).asInstanceOf(InstanceOfAssertFactories.throwable(StoreException.class))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StoreException.Code.HELD))
                    .hasMessageContaining("pid " + ProcessHandle.current().pid()).hasMessageContaining("this process");
            assertThat(anotherProcessCanLock(file)).as("another process, after the refused open").isFalse();
            assertThat(readByAnotherProcess(file)).isEqualTo(holder);
        }
        assertThat(anotherProcessCanLock(file)).as("another process, once the holder closed").isTrue();
        HolderLock.acquire(dir).close();
    }
}
