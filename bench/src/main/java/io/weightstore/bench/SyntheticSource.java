package io.weightstore.bench;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The synthetic checkpoint a bench loads: written once per size under the source directory, and reused by later runs. */
final class SyntheticSource {
    private SyntheticSource() {}

    /** The checkpoint of about {@code size} bytes in {@code sourceDir}, written first if it is not there yet. */
    static Path of(Path sourceDir, long size) throws IOException {
        Path source = sourceDir.resolve("synth-" + size);
        if (!Files.exists(source.resolve("model.safetensors.index.json"))) {
            SyntheticCheckpoint.write(SynthSpec.forSize(size, DType.BF16, 1L << 30, 1), source, b -> {});
        }
        return source;
    }
}
