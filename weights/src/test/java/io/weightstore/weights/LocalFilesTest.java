package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.store.LoopDisk;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LocalFilesTest {
    private static final int SIZE = 2 << 20;

    @TempDir
    Path tmp;

    @Test
    void twoWritersOfOneFileEachWriteWholeAndTheFileIsOneOfThemWhole() throws Exception {
        Path target = tmp.resolve("tokenizer.json");
        try (ExecutorService writers = Executors.newFixedThreadPool(2)) {
            for (int round = 0; round < 10; round++) {
                List<Future<?>> running = new ArrayList<>();
                for (byte value = 1; value <= 2; value++) {
                    byte fill = value;
                    running.add(writers.submit(() -> {
                        LocalFiles.writeAtomically(target, SIZE, file -> {
                            // In two halves, so the other writer has time to come between them.
                            file.asSlice(0, SIZE / 2).fill(fill);
                            Thread.onSpinWait();
                            file.asSlice(SIZE / 2).fill(fill);
                        });
                        return null;
                    }));
                }
                for (Future<?> writer : running) {
                    writer.get();
                }
                byte[] bytes = Files.readAllBytes(target);
                assertThat(bytes).hasSize(SIZE);
                assertThat(bytes).as("round " + round).containsOnly(bytes[0]);
                assertThat(bytes[0]).isIn((byte) 1, (byte) 2);
            }
        }
        try (var left = Files.list(tmp)) {
            assertThat(left).as("no partial file is left").containsExactly(target);
        }
    }

    @Test
    void aRefusalOfTheFileSystemNamesTheFileAskedForNotItsHiddenSibling() throws Exception {
        try (LoopDisk disk = LoopDisk.mount(tmp, 16)) {
            remount(disk.dir(), "ro");
            try {
                Path target = disk.dir().resolve("config.json");
                assertThatThrownBy(() -> LocalFiles.writeAtomically(target, 2, file -> file.fill((byte) 0)))
                        .isInstanceOf(FileSystemException.class).hasMessageStartingWith(target + ": ")
                        .hasMessageContaining("Read-only").hasMessageNotContaining(".partial");
            } finally {
                remount(disk.dir(), "rw");
            }
        }
    }

    private static void remount(Path dir, String mode) throws Exception {
        Process mount = new ProcessBuilder("mount", "-o", "remount," + mode, dir.toString()).inheritIO().start();
        assertThat(mount.waitFor()).as("mount -o remount,%s %s", mode, dir).isZero();
    }

    /** One way of writing {@code config.json} whole. */
    @FunctionalInterface
    interface ConfigWrite {
        void write(Path target) throws IOException;
    }

    static Stream<Arguments> writers() {
        return Stream.of(
                Arguments.of(Named.of("synced", (ConfigWrite) target -> LocalFiles.writeAtomically(target, 2,
                        file -> file.copyFrom(MemorySegment.ofArray("{}".getBytes()))))),
                Arguments.of(Named.of("unsynced", (ConfigWrite) target -> LocalFiles.replaceUnsynced(target, "{}"))));
    }

    @ParameterizedTest
    @MethodSource("writers")
    void aSiblingAKilledWriterLeftIsRemovedByTheNextWriteAndALiveWritersIsNot(ConfigWrite writer) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path crashed = Files.writeString(tmp.resolve(".config.json." + gone.pid() + ".k1lled.partial"), "half");
        Path writing = Files.writeString(tmp.resolve(".config.json." + ProcessHandle.current().pid() + ".st1ll.partial"), "half");
        Path otherFile = Files.writeString(tmp.resolve(".config.json.bak." + gone.pid() + ".k1lled.partial"), "half");
        Path notAPid = Files.writeString(tmp.resolve(".config.json." + "9".repeat(30) + ".x.partial"), "someone's");

        writer.write(tmp.resolve("config.json"));

        assertThat(Files.readString(tmp.resolve("config.json"))).isEqualTo("{}");
        assertThat(crashed).doesNotExist();
        assertThat(writing).exists();
        assertThat(otherFile).as("another file's").exists();
        assertThat(notAPid).as("no process id").exists();
    }

    @Test
    void aFailedWriteLeavesNothingAndAFileThereAlreadyAsItWas() throws Exception {
        Path target = Files.writeString(tmp.resolve("config.json"), "{}");

        assertThatThrownBy(() -> LocalFiles.writeAtomically(target, 16, file -> {
            file.set(ValueLayout.JAVA_BYTE, 0, (byte) 'x');
            throw new IOException("source went away");
        })).isInstanceOf(IOException.class).hasMessage("source went away");

        assertThat(Files.readString(target)).isEqualTo("{}");
        try (var left = Files.list(tmp)) {
            assertThat(left).containsExactly(target);
        }
    }
}
