package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.Filler;
import io.weightstore.store.LoopDisk;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.ClientOptions;
import io.weightstore.store.client.StoreClient;
import io.weightstore.store.embedded.EmbeddedStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An export that finds no room fails with an error that names the file, and leaves no file of the
 * checkpoint under its name half written: onto a disk with too little room from the start (refused
 * before a byte is written), and onto a disk that another writer fills while a file is written (the
 * copy into the output's mapping then faults, which the JVM reports as an InternalError).
 */
class ExportToAFullDiskTest {
    private static final long ROOM = 2 << 20;

    @TempDir
    Path tmp;

    @Test
    void anExportThatRunsOutOfRoomFailsWithNoSpaceAndLeavesNoPartOfAFile() throws Exception {
        Path source = tmp.resolve("source");
        SyntheticCheckpoint.write(SynthSpec.forSize(12 << 20, DType.BF16, 4 << 20, 7), source, b -> {});
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 64L << 20, ClientOptions.defaults());
                LoopDisk disk = LoopDisk.mount(tmp, 16)) {
            CheckpointId id = imported(store, source);
            leaveRoom(disk, ROOM);
            Path out = disk.dir().resolve("out");

            assertThatThrownBy(() -> new CheckpointExporter(new Catalog(store)).exportAll(id, out, Progress.NONE))
                    .isInstanceOf(CheckpointException.class).hasMessageStartingWith("writing " + out + "/")
                    .hasMessageContaining("bytes free, the file needs");

            assertOnlyWholeFiles(out, source);
        }
    }

    @Test
    void aDiskThatFillsDuringTheExportFailsItWithNoSpaceAndLeavesNoPartOfAFile() throws Exception {
        Path source = tmp.resolve("source");
        // One weight file of more than one read chunk (64 MiB): the disk fills after the first chunk landed.
        SyntheticCheckpoint.write(SynthSpec.forSize(72 << 20, DType.BF16, 80 << 20, 7), source, b -> {});
        try (StoreClient store = EmbeddedStore.open(tmp.resolve("home"), 160L << 20, ClientOptions.defaults());
                LoopDisk disk = LoopDisk.mount(tmp, 128)) {
            CheckpointId id = imported(store, source);
            Path out = disk.dir().resolve("out");
            Progress fillAfterFirstChunk = new Progress() {
                @Override
                public void advanced(long bytes) {
                    if (bytes >= VerifiedCopy.CHUNK && !Files.exists(disk.dir().resolve("filler"))) {
                        try {
                            Filler.fill(disk.dir().resolve("filler"));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    }
                }
            };

            assertThatThrownBy(() -> new CheckpointExporter(new Catalog(store)).exportAll(id, out, fillAfterFirstChunk))
                    .isInstanceOf(CheckpointException.class).hasMessageStartingWith("writing " + out + "/")
                    .hasMessageContaining("ran out of room while the file was written");

            assertOnlyWholeFiles(out, source);
        }
    }

    private static CheckpointId imported(StoreClient store, Path source) throws IOException {
        CheckpointId id = new CheckpointId("full-disk");
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(id, "org/full", "main", source, 1, false, 2), Progress.NONE);
        return id;
    }

    /** What an export left in {@code out}: no partial file, and every file as long as its source. */
    private static void assertOnlyWholeFiles(Path out, Path source) throws IOException {
        try (Stream<Path> left = Files.exists(out) ? Files.walk(out) : Stream.empty()) {
            for (Path file : left.filter(Files::isRegularFile).toList()) {
                assertThat(file.getFileName().toString()).as("no partial file is left").doesNotEndWith(".partial");
                assertThat(Files.size(file)).as(file + " is whole").isEqualTo(Files.size(source.resolve(out.relativize(file))));
            }
        }
    }

    /** Fills the disk, then gives back {@code bytes} of it. */
    private static void leaveRoom(LoopDisk disk, long bytes) throws IOException {
        Path filler = disk.dir().resolve("filler");
        Filler.fill(filler);
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - bytes);
        }
    }
}
