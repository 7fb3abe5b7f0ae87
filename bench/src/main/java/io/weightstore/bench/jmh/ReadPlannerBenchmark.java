package io.weightstore.bench.jmh;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.Stride;
import io.weightstore.store.client.plan.ReadPlanner;
import io.weightstore.store.client.plan.ReadTask;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
 * Planning what one batch of a load reads: a 4 GiB shard file of 64 MiB slices with 1 MiB checksum
 * blocks, read as 290 tensors (one range each, merged where they touch), as one column shard
 * (a strided read of 4096 rows), and the checksum blocks each task must verify. This is work the
 * client does before any byte moves, so it must stay far below the transfer time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ReadPlannerBenchmark {
    private static final long SLICE = 64L << 20;
    private static final int BLOCK = 1 << 20;
    private static final long SIZE = 4L << 30;

    private ObjectMeta object;
    private List<Range> tensors;
    private Stride columns;

    @Setup
    public void plan() {
        List<SliceMeta> slices = new ArrayList<>();
        int blocks = (int) (SLICE / BLOCK);
        for (long offset = 0; offset < SIZE; offset += SLICE) {
            slices.add(new SliceMeta(offset, SLICE, List.of(new ReplicaRef("n" + (offset / SLICE % 3), offset)),
                    BlockCrcs.of(new int[blocks])));
        }
        object = new ObjectMeta("weights/bench/files/model.safetensors", SIZE, SLICE, BLOCK, slices, true, Instant.EPOCH, 1);
        tensors = new ArrayList<>();
        long at = 1 << 16;
        for (int i = 0; i < 290; i++) {
            long length = i % 10 == 0 ? 8192 : 14L << 20;
            tensors.add(new Range(at, length));
            at += length;
        }
        columns = new Stride(1 << 16, 2048, 8192, 4096);
    }

    @Benchmark
    public List<ReadTask> tensorRanges() {
        return ReadPlanner.ranges(object, tensors, 16L << 20);
    }

    @Benchmark
    public List<ReadTask> columnShard() {
        return ReadPlanner.strided(object, columns, 16L << 20);
    }

    @Benchmark
    public int checksumBlocksOfEveryTask() {
        int checks = 0;
        for (ReadTask task : ReadPlanner.ranges(object, tensors, 16L << 20)) {
            checks += ReadPlanner.checks(task, object, 0).size();
        }
        return checks;
    }
}
