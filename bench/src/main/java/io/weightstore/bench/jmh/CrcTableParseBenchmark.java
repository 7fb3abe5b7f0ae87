package io.weightstore.bench.jmh;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Parsing one safetensors file's tensor CRC table (410 tensors, rows and columns for worlds of 2, 4
 * and 8: 171 KB of JSON) as a load's open does it: in a fresh process, a few times, mostly in the
 * interpreter. Each fork parses once in its setup (the classes' first use, as the manifest's parse
 * pays it in an open), then times single calls: {@code streamed} is the table's own parse, and
 * {@code treeOnly} only reads the same bytes into Jackson's tree, what the table's parse did before
 * it converted the tree.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 3)
@Fork(10)
public class CrcTableParseBenchmark {
    private static final ObjectMapper JSON = new ObjectMapper();

    private byte[] table;

    @Setup
    public void table() throws IOException {
        Random random = new Random(1);
        List<TensorCrcs> tensors = new ArrayList<>();
        for (int i = 0; i < 410; i++) {
            Map<Integer, List<Integer>> rows = new TreeMap<>();
            Map<Integer, List<Integer>> columns = new TreeMap<>();
            for (int worldSize : TensorCrcs.WORLD_SIZES) {
                rows.put(worldSize, random.ints(worldSize).boxed().toList());
                // A layer's norm splits by rows only.
                if (i % 9 != 8) {
                    columns.put(worldSize, random.ints(worldSize).boxed().toList());
                }
            }
            tensors.add(new TensorCrcs("model.layers." + i / 9 + ".mlp.down_proj.weight." + i, random.nextInt(), rows, columns));
        }
        table = TensorCrcTable.of(OptionalInt.empty(), tensors).toJson();
        TensorCrcTable.fromJson(table, "setup");
        JSON.readTree(table);
    }

    @Benchmark
    public TensorCrcTable streamed() throws IOException {
        return TensorCrcTable.fromJson(table, "bench");
    }

    @Benchmark
    public JsonNode treeOnly() throws IOException {
        return JSON.readTree(table);
    }
}
