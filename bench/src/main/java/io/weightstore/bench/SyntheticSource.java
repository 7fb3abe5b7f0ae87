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
        return of(sourceDir, size, 1L << 30);
    }

    /** As above, in shards of at most {@code shardSize}; a size other than 1 GiB gets a directory of its own. */
    static Path of(Path sourceDir, long size, long shardSize) throws IOException {
        Path source = sourceDir.resolve("synth-" + size + (shardSize == 1L << 30 ? "" : "-shards-" + shardSize));
        if (!Files.exists(source.resolve("model.safetensors.index.json"))) {
            SyntheticCheckpoint.write(SynthSpec.forSize(size, DType.BF16, shardSize, 1), source, b -> {});
        }
        return source;
    }
}
