package io.weightstore.cli;

import io.weightstore.format.DType;
import io.weightstore.format.synth.SynthSpec;
import io.weightstore.format.synth.SyntheticCheckpoint;
import io.weightstore.store.api.Progress;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.Catalog;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.CheckpointImporter;
import io.weightstore.weights.ImportRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** The checkpoint the chaos tests load: about 24 MiB in several 4 MiB shards, and every tensor's SHA-256 in the source. */
record ChaosCheckpoint(Path dir, Map<String, String> digests) {
    static ChaosCheckpoint write(Path dir) throws IOException {
        SyntheticCheckpoint.write(SynthSpec.forSize(24L << 20, DType.BF16, 4L << 20, 17), dir, bytes -> {});
        return new ChaosCheckpoint(dir, TensorDigests.ofSource(dir));
    }

    void importInto(StoreClient store, String id, int replicas) throws IOException {
        new CheckpointImporter(new Catalog(store)).run(new ImportRequest(new CheckpointId(id), "chaos/model", "main", dir, replicas,
                false, 2), Progress.NONE);
    }
}
