package io.weightstore.weights;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What an import says when its source, or a file of it, is not there when read. */
class ImportSourceMissingTest {
    private static final Path SOURCE = Path.of("/data/llama-8b");

    @Test
    void aSourceThatIsNotThereIsNoSuchDirectory() {
        assertThat(CheckpointImporter.missing(SOURCE, new NoSuchFileException(SOURCE.toString())))
                .isEqualTo("no such directory: /data/llama-8b");
    }

    @Test
    void aFileGoneBetweenTheListingAndItsReadIsNamedAsVanished() {
        String file = SOURCE.resolve("model-00002-of-00004.safetensors").toString();

        assertThat(CheckpointImporter.missing(SOURCE, new NoSuchFileException(file)))
                .startsWith("file /data/llama-8b/model-00002-of-00004.safetensors vanished while checkpoint /data/llama-8b was read")
                .endsWith("nothing was written");
    }
}
