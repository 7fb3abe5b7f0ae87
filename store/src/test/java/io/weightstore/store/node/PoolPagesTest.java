package io.weightstore.store.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PoolPagesTest {
    @TempDir
    Path dir;

    private PoolPages pagesOfAPoolUnder(String... mounts) throws IOException {
        Path pool = Files.createFile(Files.createDirectories(dir.resolve("weightstore")).resolve("pool"));
        return PoolPages.of(pool, List.of(mounts));
    }

    private String mount(String fileSystem, Path point, String options) throws IOException {
        return fileSystem + " " + Files.createDirectories(point).toRealPath() + " " + fileSystem + " " + options + " 0 0";
    }

    @Test
    void aTmpfsWithoutHugeHoldsThePoolInSmallPages() throws IOException {
        PoolPages pages = pagesOfAPoolUnder("/dev/root / ext4 rw,relatime 0 0", mount("tmpfs", dir, "rw,nosuid,nodev"));
        assertThat(pages.smallTmpfsPages()).isTrue();
        assertThat(pages).hasToString("tmpfs, 4 KiB pages");
    }

    @Test
    void aTmpfsMountedHugeNeverIsSmallPagesToo() throws IOException {
        assertThat(pagesOfAPoolUnder(mount("tmpfs", dir, "rw,huge=never")).smallTmpfsPages()).isTrue();
    }

    @Test
    void theDeepestMountAboveThePoolDecides() throws IOException {
        PoolPages pages = pagesOfAPoolUnder(mount("tmpfs", dir.getParent(), "rw"),
                mount("tmpfs", dir.resolve("weightstore"), "rw,mode=700,huge=within_size"), "/dev/sda1 /srv ext4 rw 0 0");
        assertThat(pages.smallTmpfsPages()).isFalse();
        assertThat(pages).hasToString("tmpfs, huge=within_size");
    }

    @Test
    void theLaterOfTwoMountsOnOnePointDecides() throws IOException {
        PoolPages pages = pagesOfAPoolUnder(mount("tmpfs", dir, "rw,huge=always"), mount("tmpfs", dir, "rw"));
        assertThat(pages).hasToString("tmpfs, 4 KiB pages");
    }

    @Test
    void aDiskFileSystemIsNamedAndNotSmallTmpfsPages() throws IOException {
        PoolPages pages = pagesOfAPoolUnder("/dev/root / ext4 rw,relatime 0 0", mount("xfs", dir, "rw"));
        assertThat(pages.smallTmpfsPages()).isFalse();
        assertThat(pages).hasToString("xfs");
    }

    @Test
    void noMountAboveThePoolIsUnknown() throws IOException {
        PoolPages pages = pagesOfAPoolUnder("short line", "tmpfs /nowhere/else tmpfs rw 0 0");
        assertThat(pages.smallTmpfsPages()).isFalse();
        assertThat(pages).hasToString("unknown");
    }

    @Test
    void thisProcessSeesTheMountOfItsOwnTemporaryDirectory() throws IOException {
        assertThat(PoolPages.of(dir).fileSystem()).isNotEqualTo("unknown");
    }
}
