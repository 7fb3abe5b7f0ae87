package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs in huge pages ({@code huge=within_size}) of a test's own, mounted at a new directory
 * (needs root), unmounted on close: where pools are fastest, and the one file system a same-host
 * write goes into through the pool's mapping.
 */
public final class HugeTmpfs implements AutoCloseable {
    private final Path dir;

    private HugeTmpfs(Path dir) {
        this.dir = dir;
    }

    /** Mounts one of {@code megabytes} at {@code dir}, which must not exist; skips the calling test where this machine cannot. */
    public static HugeTmpfs mount(Path dir, int megabytes) throws Exception {
        Files.createDirectory(dir);
        Process mounting = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m,huge=within_size",
                "weightstore-test-huge", dir.toString()).redirectErrorStream(true).start();
        String said = new String(mounting.getInputStream().readAllBytes());
        assertThat(mounting.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assumeTrue(mounting.exitValue() == 0, "cannot mount a tmpfs in huge pages here: " + said);
        return new HugeTmpfs(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Lazily: a mapping of the test's still open would make a plain umount fail and hide the test's own failure. */
    @Override
    public void close() throws Exception {
        new ProcessBuilder("umount", "--lazy", dir.toString()).inheritIO().start().waitFor(60, TimeUnit.SECONDS);
    }
}
