package io.weightstore.store.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What pages a pool's file gets in memory, as far as its mount says: a tmpfs mounted without
 * {@code huge=} (such as {@code /dev/shm}) holds files in 4 KiB pages, which costs a node's sendfile
 * and a same-host reader's page faults a lookup per 4 KiB page, where a disk file system's page
 * cache and a tmpfs mounted {@code huge=within_size} use large folios.
 *
 * @param fileSystem the mount's type ({@code tmpfs}, {@code ext4} ...), or {@code unknown}
 * @param huge a tmpfs's {@code huge=} option other than {@code never}, else null
 */
public record PoolPages(String fileSystem, String huge) {
    private static final Path MOUNTS = Path.of("/proc/self/mounts");
    private static final PoolPages UNKNOWN = new PoolPages("unknown", null);

    /** Where {@code path} (which must exist) lives, from this process's mount table. */
    public static PoolPages of(Path path) {
        try {
            return of(path, Files.readAllLines(MOUNTS));
        } catch (IOException e) {
            return UNKNOWN;
        }
    }

    /** As {@link #of(Path)}, from {@code mounts} in the format of {@code /proc/self/mounts}. */
    static PoolPages of(Path path, List<String> mounts) throws IOException {
        Path real = path.toRealPath();
        String bestPoint = "";
        PoolPages best = UNKNOWN;
        for (String line : mounts) {
            String[] fields = line.split(" ");
            if (fields.length < 4) {
                continue;
            }
            String point = fields[1];
            // The deepest mount point above the path wins; a later line for the same point was mounted over an earlier one.
            if (real.startsWith(point) && point.length() >= bestPoint.length()) {
                bestPoint = point;
                best = new PoolPages(fields[2], fields[2].equals("tmpfs") ? huge(fields[3]) : null);
            }
        }
        return best;
    }

    private static String huge(String options) {
        for (String option : options.split(",")) {
            if (option.startsWith("huge=") && !option.equals("huge=never")) {
                return option;
            }
        }
        return null;
    }

    /** A tmpfs in 4 KiB pages: the case worth telling an operator about. */
    public boolean smallTmpfsPages() {
        return fileSystem.equals("tmpfs") && huge == null;
    }

    @Override
    public String toString() {
        return !fileSystem.equals("tmpfs") ? fileSystem : huge == null ? "tmpfs, 4 KiB pages" : "tmpfs, " + huge;
    }
}
