package io.weightstore.bench.jmh;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.ArrivalCheck;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Checking a 16 MiB payload (a read task's piece) of 1 MiB checksum blocks as it arrives in
 * socket-sized pieces, against one CRC pass over the whole payload after it arrived: the cost of
 * feeding arrivals into running CRCs, with the bytes still in cache.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class ArrivalCheckBenchmark {
    private static final int PAYLOAD = 16 << 20;
    private static final int BLOCK = 1 << 20;

    /** How many bytes one socket read delivers. */
    @Param({"65536", "262144", "1048576"})
    int piece;

    private Arena arena;
    private MemorySegment payload;
    private List<ArrivalCheck.Block> blocks;

    @Setup(Level.Trial)
    public void fill() {
        arena = Arena.ofConfined();
        payload = arena.allocate(PAYLOAD, 64);
        SplittableRandom random = new SplittableRandom(2);
        for (long i = 0; i < PAYLOAD; i += 8) {
            payload.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
        blocks = new ArrayList<>();
        for (long at = 0; at < PAYLOAD; at += BLOCK) {
            blocks.add(new ArrivalCheck.Block(at, BLOCK, Checksums.crc32c(payload.asSlice(at, BLOCK)), at));
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        arena.close();
    }

    @Benchmark
    public ArrivalCheck asBytesArrive() throws StoreException {
        ArrivalCheck check = new ArrivalCheck("bench", blocks);
        for (long at = 0; at < PAYLOAD; at += piece) {
            check.arrived(at, payload.asSlice(at, Math.min(piece, PAYLOAD - at)));
        }
        check.throwIfCorrupt();
        return check;
    }

    @Benchmark
    public int wholePayloadAfterwards() {
        int crcs = 0;
        for (long at = 0; at < PAYLOAD; at += BLOCK) {
            crcs ^= Checksums.crc32c(payload.asSlice(at, BLOCK));
        }
        return crcs;
    }
}
