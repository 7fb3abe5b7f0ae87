package io.weightstore.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small ext4 file system of a test's own, for what a full disk does to a writer: an image file
 * under {@code work}, mounted by loop device at {@code work/disk} (needs root, loop devices and
 * mkfs.ext4), unmounted on close.
 */
public final class LoopDisk implements AutoCloseable {
    private static final Path MKFS = Path.of("/usr/sbin/mkfs.ext4");
    private static final Path LOOP_CONTROL = Path.of("/dev/loop-control");

    private final Path dir;

    private LoopDisk(Path dir) {
        this.dir = dir;
    }

    /** Mounts a fresh file system of {@code megabytes}; skips the calling test where this machine cannot. */
    public static LoopDisk mount(Path work, int megabytes) throws Exception {
        assumeTrue(Files.isExecutable(MKFS) && Files.exists(LOOP_CONTROL) && "root".equals(System.getProperty("user.name")),
                "needs root, loop devices and mkfs.ext4 to mount a small ext4 image");
        Path image = work.resolve("disk.img");
        Path dir = Files.createDirectory(work.resolve("disk"));
        run("truncate", "-s", megabytes + "M", image.toString());
        run(MKFS.toString(), "-q", image.toString());
        run("mount", "-o", "loop", image.toString(), dir.toString());
        return new LoopDisk(dir);
    }

    /** Where the file system is mounted. */
    public Path dir() {
        return dir;
    }

    @Override
    public void close() throws Exception {
        run("umount", dir.toString());
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command) + ": " + output).isZero();
    }
}
