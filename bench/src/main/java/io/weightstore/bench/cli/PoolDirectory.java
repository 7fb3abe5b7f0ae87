package io.weightstore.bench.cli;

import io.weightstore.bench.HugePageTmpfs;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * Where a bench's nodes keep their pools: {@code --pool-dir} when given; else a tmpfs in huge pages
 * of the bench's own, as a deployed node's pool gets; else, where this process may not mount one,
 * {@code /dev/shm}, with a line on stderr saying why.
 */
final class PoolDirectory implements AutoCloseable {
    /** What {@code --pool-dir} says in the help of every bench that takes it. */
    static final String OPTION_DESCRIPTION = "Where the nodes' pools go. Default: a tmpfs in huge pages that the bench mounts at "
            + "/tmp/weightstore-bench-pools and removes afterwards, as deploy's pool mount gives a node (needs root); "
            + "else /dev/shm, in 4 KiB pages.";

    private static final Path FALLBACK = Path.of("/dev/shm");

    private final Path dir;
    private final HugePageTmpfs mounted;

    private PoolDirectory(Path dir, HugePageTmpfs mounted) {
        this.dir = dir;
        this.mounted = mounted;
    }

    static PoolDirectory of(Path chosen, PrintWriter err) {
        return of(chosen, HugePageTmpfs.DEFAULT, err);
    }

    static PoolDirectory of(Path chosen, Path mountPoint, PrintWriter err) {
        if (chosen != null) {
            return new PoolDirectory(chosen, null);
        }
        try {
            HugePageTmpfs tmpfs = HugePageTmpfs.mount(mountPoint);
            return new PoolDirectory(tmpfs.dir(), tmpfs);
        } catch (IOException e) {
            err.println("pools in " + FALLBACK + ", in 4 KiB pages: no tmpfs in huge pages could be mounted (" + e.getMessage() + ")");
            err.flush();
            return new PoolDirectory(FALLBACK, null);
        }
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException {
        if (mounted != null) {
            mounted.close();
        }
    }
}
