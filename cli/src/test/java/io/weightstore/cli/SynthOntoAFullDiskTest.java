package io.weightstore.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.Filler;
import io.weightstore.store.LoopDisk;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A synth whose disk fills while it writes (another writer took the room the check before it saw) fails
 * naming the file it was writing, and leaves no debris that the next synth into the directory would
 * take for a checkpoint.
 */
class SynthOntoAFullDiskTest {
    @TempDir
    Path tmp;

    @Test
    void aSynthWhoseDiskFillsWhileItWritesRemovesWhatItWroteAndNamesTheFile() throws Exception {
        try (LoopDisk disk = LoopDisk.mount(tmp, 16)) {
            Path out = disk.dir().resolve("out");
            Path filler = disk.dir().resolve("filler");
            LongConsumer fillAfterFirstChunk = bytes -> {
                if (!Files.exists(filler)) {
                    try {
                        Filler.fill(filler);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };

            assertThatThrownBy(() -> SyntheticCheckpoint.write(SynthSpec.forSize(8 << 20, DType.F32, 2 << 20, 1), out,
                    fillAfterFirstChunk))
                    .isInstanceOf(IOException.class).hasMessageStartingWith("writing " + out.resolve("model-0000"))
                    .hasMessageContaining("No space left on device");
            assertThat(out).as("the directory synth made, with what it wrote").doesNotExist();
        }
    }
}
