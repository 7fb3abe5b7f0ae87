package io.weightstore.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Drops the kernel's clean page cache, so a local-disk run reads the disk as a freshly started
 * engine would, instead of memory the previous run left behind. Needs root.
 */
final class PageCache {
    private static final Path DROP = Path.of("/proc/sys/vm/drop_caches");

    private PageCache() {}

    static boolean canDrop() {
        return Files.isWritable(DROP);
    }

    static void drop() throws IOException, InterruptedException {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
        Files.writeString(DROP, "1\n");
    }
}
