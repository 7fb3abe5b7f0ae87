package io.weightstore.cli;

import io.weightstore.format.CheckpointDirectory;
import io.weightstore.format.CheckpointFile;
import io.weightstore.format.FileRangeSource;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.client.StoreClient;
import io.weightstore.weights.CheckpointId;
import io.weightstore.weights.Sha256;
import io.weightstore.weights.loader.CheckpointSource;
import io.weightstore.weights.loader.LoadOptions;
import io.weightstore.weights.loader.Tensor;
import io.weightstore.weights.loader.TensorStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** Every tensor's SHA-256, from the source files or as a load from the store returned it, to compare the two. */
final class TensorDigests {
    /** Runs once, after the load's first tensor arrived: the moment to break something mid-load. */
    @FunctionalInterface
    interface MidLoad {
        void run() throws Exception;
    }

    private TensorDigests() {}

    static Map<String, String> ofSource(Path dir) throws IOException {
        Map<String, String> digests = new TreeMap<>();
        for (CheckpointFile file : CheckpointDirectory.read(dir).files()) {
            if (file.header().isEmpty()) {
                continue;
            }
            SafetensorsHeader header = file.header().get();
            try (FileRangeSource in = FileRangeSource.open(dir.resolve(file.path()))) {
                for (TensorInfo tensor : header.tensors()) {
                    ByteBuffer bytes = ByteBuffer.allocate((int) tensor.byteSize());
                    in.readFully(header.dataStart() + tensor.begin(), bytes);
                    digests.put(tensor.name(), Sha256.of(MemorySegment.ofArray(bytes.array())));
                }
            }
        }
        return digests;
    }

    /** Loads every tensor through a small buffer, so the load runs in many batches, calling {@code midLoad} after the first. */
    static Map<String, String> ofLoad(StoreClient store, String checkpoint, MidLoad midLoad) throws Exception {
        Map<String, String> digests = new TreeMap<>();
        try (CheckpointSource source = CheckpointSource.open(store, new CheckpointId(checkpoint),
                LoadOptions.defaults().withBuffer(4L << 20)); TensorStream stream = source.stream()) {
            for (Tensor tensor; (tensor = stream.next()) != null; ) {
                digests.put(tensor.name(), Sha256.of(tensor.data()));
                if (digests.size() == 1) {
                    midLoad.run();
                }
            }
        }
        return digests;
    }
}
