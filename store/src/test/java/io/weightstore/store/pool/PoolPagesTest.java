package io.weightstore.store.pool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PoolPagesTest {
    /** A tmpfs's device (anonymous: major 0) and a disk's, as glibc encodes a dev_t. */
    private static final long TMPFS = device(0, 27);
    private static final long DISK = device(259, 300_000);

    @TempDir
    Path dir;

    private static long device(long major, long minor) {
        return ((major & 0xfff) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xff) | ((minor & ~0xffL) << 12);
    }

    private static String tmpfs(String point, String superOptions) {
        return "31 24 0:27 / " + point + " rw,nosuid,nodev shared:5 - tmpfs tmpfs " + superOptions;
    }

    private static final String ROOT = "24 1 259:300000 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro";

    @Test
    void aTmpfsWithoutHugeHoldsThePoolInSmallPages() {
        PoolPages pages = PoolPages.of(TMPFS, List.of(ROOT, tmpfs("/dev/shm", "rw,inode64")), "never");
        assertThat(pages.smallTmpfsPages()).isTrue();
        assertThat(pages).hasToString("tmpfs, 4 KiB pages");
    }

    @Test
    void aTmpfsMountedHugeAlwaysOrWithinSizeGivesHugePages() {
        for (String huge : List.of("huge=always", "huge=within_size")) {
            PoolPages pages = PoolPages.of(TMPFS, List.of(ROOT, tmpfs("/dev/shm/weightstore", "rw,mode=700," + huge)), "never");
            assertThat(pages.smallTmpfsPages()).as(huge).isFalse();
            assertThat(pages).as(huge).hasToString("tmpfs, huge pages");
        }
    }

    @Test
    void hugeNeverAndHugeAdviseAreSmallPages() {
        for (String huge : List.of("huge=never", "huge=advise")) {
            assertThat(PoolPages.of(TMPFS, List.of(tmpfs("/dev/shm", "rw," + huge)), "never").smallTmpfsPages()).as(huge).isTrue();
        }
    }

    @Test
    void theKernelsDenyAndForceOverrideTheMountOption() {
        assertThat(PoolPages.of(TMPFS, List.of(tmpfs("/p", "rw,huge=within_size")), "deny").smallTmpfsPages()).isTrue();
        assertThat(PoolPages.of(TMPFS, List.of(tmpfs("/p", "rw")), "force").hugePages()).isTrue();
    }

    @Test
    void onlyATmpfsInHugePagesIsWrittenThroughItsMapping() {
        assertThat(PoolFile.writesThroughMapping(new PoolPages("tmpfs", true))).isTrue();
        assertThat(PoolFile.writesThroughMapping(new PoolPages("tmpfs", false))).as("4 KiB pages").isFalse();
        assertThat(PoolFile.writesThroughMapping(new PoolPages("ext4", false))).as("a disk").isFalse();
        assertThat(PoolFile.writesThroughMapping(new PoolPages("unknown", false))).as("unknown").isFalse();
        assertThat(PoolFile.writesThroughMapping(new PoolPages("ext4", true))).as("huge pages claimed off a tmpfs").isFalse();
    }

    @Test
    void theMountIsFoundByItsDeviceWhateverItsPointSays() {
        // A space in a mount point is \040 in the table, and another device mounted below the pool's does not count.
        PoolPages pages = PoolPages.of(TMPFS, List.of(ROOT, tmpfs("/srv/pool\\040dir", "rw,huge=within_size"),
                "40 31 0:28 / /srv/pool\\040dir/sub rw - tmpfs tmpfs rw"), "never");
        assertThat(pages.hugePages()).isTrue();
    }

    @Test
    void aDiskFileSystemIsNamedAndNotSmallTmpfsPages() {
        PoolPages pages = PoolPages.of(DISK, List.of(tmpfs("/dev/shm", "rw"), ROOT), "never");
        assertThat(pages.smallTmpfsPages()).isFalse();
        assertThat(pages).hasToString("ext4");
    }

    @Test
    void noMountOfTheDeviceIsUnknown() {
        PoolPages pages = PoolPages.of(device(0, 99), List.of("a short line", ROOT, tmpfs("/dev/shm", "rw")), "never");
        assertThat(pages.smallTmpfsPages()).isFalse();
        assertThat(pages).hasToString("unknown");
    }

    @Test
    void majorAndMinorNumbersDecodeAsGlibcEncodesThem() {
        assertThat(PoolPages.major(DISK)).isEqualTo(259);
        assertThat(PoolPages.minor(DISK)).isEqualTo(300_000);
        assertThat(PoolPages.major(TMPFS)).isZero();
        assertThat(PoolPages.minor(TMPFS)).isEqualTo(27);
    }

    @Test
    void thisProcessFindsTheFileSystemOfItsOwnTemporaryDirectory() throws IOException {
        Path file = Files.createFile(dir.resolve("pool"));
        String type = Files.getFileStore(file).type();
        assertThat(PoolPages.of(file).fileSystem()).isEqualTo(type);
    }
}
