package io.weightstore.store.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What pages a pool's file gets in memory, as far as the kernel's mount table says: a tmpfs mounted
 * without {@code huge=} (such as {@code /dev/shm}) holds files in 4 KiB pages, which costs a node's
 * sendfile and a same-host reader's page faults a lookup per 4 KiB page, where a disk file
 * system's page cache and a tmpfs mounted {@code huge=within_size} use large folios.
 *
 * @param fileSystem the type of the file system the pool is on ({@code tmpfs}, {@code ext4} ...), or {@code unknown}
 * @param hugePages a tmpfs that gives its files huge pages: mounted {@code huge=always} or
 *     {@code huge=within_size} (not {@code advise}: nothing maps a pool with that advice), unless
 *     the kernel's {@code shmem_enabled} is {@code deny}, or {@code force} for any tmpfs
 */
public record PoolPages(String fileSystem, boolean hugePages) {
    private static final Path MOUNT_INFO = Path.of("/proc/self/mountinfo");
    private static final Path SHMEM_ENABLED = Path.of("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
    private static final PoolPages UNKNOWN = new PoolPages("unknown", false);

    /** Where {@code path} (which must exist) lives, from this process's mount table. */
    public static PoolPages of(Path path) {
        try {
            long device = (long) Files.getAttribute(path, "unix:dev");
            return of(device, Files.readAllLines(MOUNT_INFO), shmemEnabled());
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return UNKNOWN;
        }
    }

    /**
     * As {@link #of(Path)}, for a file on {@code device} (a {@code st_dev}), from {@code mountInfo}
     * in the format of {@code /proc/self/mountinfo}. Matched by device, not by path: mount points
     * there are escaped ({@code \040} for a space), and every mount of one device, bind mounts too,
     * shares its super block's options.
     */
    static PoolPages of(long device, List<String> mountInfo, String shmemEnabled) {
        String majorMinor = major(device) + ":" + minor(device);
        for (String line : mountInfo) {
            // ID PARENT MAJOR:MINOR ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS
            String[] sides = line.split(" - ", 2);
            String[] mount = sides[0].split(" ");
            String[] superBlock = sides.length == 2 ? sides[1].split(" ") : new String[0];
            if (mount.length >= 3 && mount[2].equals(majorMinor) && superBlock.length >= 3) {
                String type = superBlock[0];
                return new PoolPages(type, type.equals("tmpfs") && huge(superBlock[2], shmemEnabled));
            }
        }
        return UNKNOWN;
    }

    private static boolean huge(String superOptions, String shmemEnabled) {
        if (shmemEnabled.equals("deny") || shmemEnabled.equals("force")) {
            return shmemEnabled.equals("force");
        }
        for (String option : superOptions.split(",")) {
            if (option.equals("huge=always") || option.equals("huge=within_size")) {
                return true;
            }
        }
        return false;
    }

    /** The bracketed choice of {@code shmem_enabled} ("always within_size advise [never] deny force"), or "" when unreadable. */
    private static String shmemEnabled() {
        try {
            String line = Files.readString(SHMEM_ENABLED);
            int open = line.indexOf('[');
            int close = line.indexOf(']', open + 1);
            return open >= 0 && close > open ? line.substring(open + 1, close) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** The major number of a Linux {@code dev_t} as glibc encodes it. */
    static long major(long device) {
        return ((device >>> 8) & 0xfff) | ((device >>> 32) & 0xfffff000L);
    }

    /** The minor number of a Linux {@code dev_t} as glibc encodes it. */
    static long minor(long device) {
        return (device & 0xff) | ((device >>> 12) & 0xffffff00L);
    }

    /** A tmpfs in 4 KiB pages: the case worth telling an operator about. */
    public boolean smallTmpfsPages() {
        return fileSystem.equals("tmpfs") && !hugePages;
    }

    @Override
    public String toString() {
        return !fileSystem.equals("tmpfs") ? fileSystem : hugePages ? "tmpfs, huge pages" : "tmpfs, 4 KiB pages";
    }
}
