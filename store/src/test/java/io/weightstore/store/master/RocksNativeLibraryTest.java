package io.weightstore.store.master;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where RocksDB's native library is kept between processes, and when it is extracted again. */
class RocksNativeLibraryTest {
    @TempDir
    Path root;

    private static Path jar() {
        Path jar = RocksNativeLibrary.rocksJar();
        assertThat(jar).as("RocksDB's classes come from its jar on the test class path").isNotNull();
        return jar;
    }

    private static Path library(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.toList();
            assertThat(all).as("the kept library and nothing half-written beside it").hasSize(1);
            return all.getFirst();
        }
    }

    @Test
    void theFirstProcessExtractsTheLibraryIntoAnOwnerOnlyDirectoryNamedAfterTheJarEntry() throws IOException {
        Path dir = RocksNativeLibrary.keep(jar(), root);
        assertThat(dir.getParent()).isEqualTo(root);
        assertThat(dir.getFileName().toString()).matches("rocksdbjni-\\d+-[0-9a-f]{8}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(Files.size(library(dir))).isGreaterThan(1 << 20);
    }

    @Test
    void aLaterProcessLoadsTheKeptCopyWithoutWritingItAgain() throws IOException {
        Path library = library(RocksNativeLibrary.keep(jar(), root));
        FileTime written = FileTime.fromMillis(1_000_000);
        Files.setLastModifiedTime(library, written);
        RocksNativeLibrary.keep(jar(), root);
        assertThat(Files.getLastModifiedTime(library)).isEqualTo(written);
    }

    @Test
    void aKeptCopyThatNoLongerMatchesItsCrcIsExtractedAgain() throws IOException {
        Path dir = RocksNativeLibrary.keep(jar(), root);
        Path library = library(dir);
        byte[] original = Files.readAllBytes(library);
        byte[] damaged = original.clone();
        damaged[damaged.length / 2] ^= 1;
        Files.write(library, damaged);
        RocksNativeLibrary.keep(jar(), root);
        assertThat(Files.readAllBytes(library(dir))).isEqualTo(original);
    }

    @Test
    void theCLibraryIsReadFromTheProcesssMappingsNotAskedOfAForkedLdd() {
        String glibc = """
                7f3c2a000000-7f3c2a028000 r--p 00000000 08:01 1835 /usr/lib/x86_64-linux-gnu/libc.so.6
                7f3c2a400000-7f3c2a42c000 r--p 00000000 08:01 1822 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
                7f3c29c00000-7f3c29e00000 r-xp 00000000 08:01 9001 /home/musl-fan/.weightstore/native/librocksdbjni-linux64.so
                """;
        assertThat(RocksNativeLibrary.mapsMusl(glibc)).isFalse();
        assertThat(RocksNativeLibrary.mapsMusl(glibc + "7f3c2b000000-7f3c2b014000 r--p 00000000 08:01 77 /lib/ld-musl-x86_64.so.1\n"))
                .isTrue();
        assertThat(RocksNativeLibrary.mapsMusl("7f00-7f10 r-xp 00000000 08:01 77 /usr/lib/libc.musl-aarch64.so.1\n")).isTrue();
    }

    /** A process loads it ahead on a thread of its own while its store opens on another. */
    @Test
    void threadsLoadingAtOnceEachReturnWithTheLibraryUsable() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> loads = new ArrayList<>();
        try (ExecutorService threads = Executors.newFixedThreadPool(4)) {
            for (int i = 0; i < 4; i++) {
                loads.add(threads.submit(() -> {
                    start.await();
                    RocksNativeLibrary.load();
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> load : loads) {
                load.get();
            }
        }
        try (RocksMetadataStore store = RocksMetadataStore.open(root.resolve("db"))) {
            assertThat(store.object("nothing/here")).isEmpty();
        }
    }
}
