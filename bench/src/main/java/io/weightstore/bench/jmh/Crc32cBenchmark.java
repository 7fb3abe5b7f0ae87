package io.weightstore.bench.jmh;

import io.weightstore.store.checksum.Checksums;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
 * The store's CRC32C (native where it loads) against the JDK's, on a block in cache (1 MiB, the
 * checksum block) and on data far larger than the caches (256 MiB), as the read path sees it.
 * Throughput in bytes: ops/s times the size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class Crc32cBenchmark {
    @Param({"1048576", "268435456"})
    int bytes;

    private Arena arena;
    private MemorySegment data;

    @Setup(Level.Trial)
    public void fill() {
        arena = Arena.ofConfined();
        data = arena.allocate(bytes, 64);
        SplittableRandom random = new SplittableRandom(1);
        for (long i = 0; i < bytes; i += 8) {
            data.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
    }

    @TearDown(Level.Trial)
    public void free() {
        arena.close();
    }

    @Benchmark
    public int store() {
        return Checksums.crc32c(data);
    }

    @Benchmark
    public long jdk() {
        CRC32C crc = new CRC32C();
        crc.update(data.asByteBuffer());
        return crc.getValue();
    }
}
