package io.weightstore.bench;

import io.weightstore.store.pool.PoolPages;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs in huge pages ({@code huge=within_size}) mounted for one bench's pools: what
 * {@code deploy}'s {@code dev-shm-weightstore.mount} gives a node, where {@code /dev/shm}'s 4 KiB
 * pages cost every sendfile and every same-host mapping a lookup per page. Only root may mount.
 * Closing unmounts it lazily (it goes once the last open file on it is closed) and removes the
 * directory; a shutdown hook does the same for a bench stopped by Ctrl-C, and a mount that a
 * killed bench left at the same place is replaced.
 */
public final class HugePageTmpfs implements AutoCloseable {
    /** Where {@code bench load}, {@code bench compare} and {@code bench gateway} mount theirs. */
    public static final Path DEFAULT = Path.of("/tmp/weightstore-bench-pools");
    private static final long COMMAND_SECONDS = 30;

    private final Path point;
    private final Thread unmountOnExit;
    private boolean closed;

    private HugePageTmpfs(Path point) {
        this.point = point;
        this.unmountOnExit = new Thread(this::unmountQuietly, "huge-page-tmpfs-unmount");
        Runtime.getRuntime().addShutdownHook(unmountOnExit);
    }

    /**
     * Mounts a tmpfs in huge pages at {@code point}, made if missing; throws with mount's own words
     * (such as "must be superuser") where this process may not, or where the kernel gives no huge
     * pages to it.
     */
    public static HugePageTmpfs mount(Path point) throws IOException {
        Files.createDirectories(point);
        if (isMountPoint(point)) {
            run("umount", "--lazy", point.toString());
        }
        run("mount", "-t", "tmpfs", "-o", "huge=within_size,mode=0700", "weightstore-bench-pools", point.toString());
        HugePageTmpfs mounted = new HugePageTmpfs(point);
        PoolPages pages = PoolPages.of(point);
        if (!pages.hugePages()) {
            mounted.close();
            throw new IOException("the tmpfs mounted at " + point + " has no huge pages (" + pages
                    + "): see /sys/kernel/mm/transparent_hugepage/shmem_enabled");
        }
        return mounted;
    }

    /** The mount point: the directory the pools go in. */
    public Path dir() {
        return point;
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(unmountOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or about to: it unmounts.
        }
        run("umount", "--lazy", point.toString());
        Files.deleteIfExists(point);
    }

    private void unmountQuietly() {
        try {
            close();
        } catch (IOException e) {
            System.err.println("could not unmount " + point + ": " + e.getMessage());
        }
    }

    /** A directory whose device differs from its parent's is where a file system is mounted. */
    private static boolean isMountPoint(Path dir) throws IOException {
        Path parent = dir.toAbsolutePath().getParent();
        return parent != null && !Files.getAttribute(dir, "unix:dev").equals(Files.getAttribute(parent, "unix:dev"));
    }

    /** Runs {@code command}, failing with its output when it fails or takes over COMMAND_SECONDS. */
    private static void run(String... command) throws IOException {
        String line = String.join(" ", command);
        // Output to a file, not a pipe: a command that hangs must not block this thread past the deadline in a read.
        Path output = Files.createTempFile("weightstore-mount-", ".log");
        try {
            Process process;
            try {
                process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
            } catch (IOException e) {
                throw new IOException("cannot run " + command[0] + ": " + e.getMessage(), e);
            }
            try {
                if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IOException(line + " did not finish within " + COMMAND_SECONDS + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + line, e);
            }
            if (process.exitValue() != 0) {
                String said = Files.readString(output, StandardCharsets.UTF_8).strip();
                throw new IOException(line + " failed (exit " + process.exitValue() + ")" + (said.isEmpty() ? "" : ": " + said));
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
