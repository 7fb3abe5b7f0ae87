package io.weightstore.bench.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.weightstore.format.FileRangeSource;
import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.SafetensorsHeaderParser;
import io.weightstore.format.TensorInfo;
import io.weightstore.weights.Sha256;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Each tensor's SHA-256 by name: of the files a bed test imported, and of what a {@code load --digest --json} read. */
final class TensorDigests {
    private TensorDigests() {}

    /** Each tensor of the safetensors files in {@code checkpoint}, by name, and its bytes' SHA-256. */
    static Map<String, String> of(Path checkpoint) throws Exception {
        Map<String, String> digests = new TreeMap<>();
        try (Stream<Path> files = Files.list(checkpoint); Arena arena = Arena.ofConfined()) {
            for (Path file : files.filter(f -> f.toString().endsWith(".safetensors")).toList()) {
                SafetensorsHeader header;
                try (FileRangeSource range = FileRangeSource.open(file)) {
                    header = SafetensorsHeaderParser.read(range);
                }
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                    MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                    for (TensorInfo tensor : header.tensors()) {
                        digests.put(tensor.name(), Sha256.of(mapped.asSlice(header.dataStart() + tensor.begin(), tensor.end() - tensor.begin())));
                    }
                }
            }
        }
        assertThat(digests).as("tensors in %s", checkpoint).isNotEmpty();
        return digests;
    }

    /** The digests a {@code load --digest --json} printed for its first rank. */
    static Map<String, String> loaded(String output) throws Exception {
        Map<String, String> loaded = new TreeMap<>();
        for (JsonNode tensor : BedCluster.json(output).get(0).get("digests")) {
            loaded.put(tensor.get("name").asText(), tensor.get("sha256").asText());
        }
        return loaded;
    }
}
