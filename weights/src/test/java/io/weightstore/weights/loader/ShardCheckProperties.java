package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.checks.TensorCrcCalculator;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Whatever a shard plan asks a rank for, the loader finds the recorded CRC of exactly those bytes
 * when the split is even over 2, 4 or 8 ranks (and the whole tensor's always), accepts the right
 * bytes, and refuses any byte changed.
 */
class ShardCheckProperties {
    @Property(tries = 300)
    void evenShardsAreCheckedByTheClientAndAChangedByteIsCaught(@ForAll @IntRange(min = 1, max = 24) int rows,
            @ForAll @IntRange(min = 1, max = 24) int columns, @ForAll("dtypes") DType dtype, @ForAll @IntRange(max = 3) int worldIndex,
            @ForAll boolean byColumns, @ForAll long seed) throws Exception {
        TensorInfo info = new TensorInfo("w", dtype, List.of((long) rows, (long) columns), 0, (long) rows * columns * dtype.bits() / 8);
        byte[] bytes = new byte[(int) info.byteSize()];
        new SplittableRandom(seed).nextBytes(bytes);
        CheckpointSource.Location location = new CheckpointSource.Location("f.safetensors", null, 0, info,
                Optional.of(TensorCrcCalculator.compute(info, MemorySegment.ofArray(bytes))));
        int worldSize = List.of(1, 2, 4, 8).get(worldIndex);
        Split split = byColumns ? Split.DIM1 : Split.DIM0;
        int dimension = byColumns ? columns : rows;
        if (dimension % worldSize != 0) {
            return;
        }
        for (int rank = 0; rank < worldSize; rank++) {
            ShardRead read = ShardRead.of(info, split, rank, worldSize, false);
            byte[] received = gather(bytes, read);
            ShardCheck check = ShardCheck.of(location, read);
            assertThat(check.byClient()).as("%s of %d, rank %d", split, worldSize, rank).isTrue();
            check.verifyCrc(Checksums.crc32c(MemorySegment.ofArray(received)));
            received[(int) Math.floorMod(seed, (long) received.length)] ^= 1;
            assertThatThrownBy(() -> check.verifyCrc(Checksums.crc32c(MemorySegment.ofArray(received))))
                    .isInstanceOf(CheckpointException.class)
                    .hasMessageContaining("tensor w of f.safetensors").hasMessageContaining(worldSize == 1 ? "the whole tensor"
                            : "rank " + rank + " of " + worldSize + "'s " + (byColumns ? "columns" : "rows"));
        }
    }

    @Provide
    Arbitrary<DType> dtypes() {
        return Arbitraries.of(DType.F32, DType.BF16, DType.I8);
    }

    @Property(tries = 50)
    void anUnevenShardIsLeftToTheNodes(@ForAll @IntRange(min = 1, max = 5) int extra) throws Exception {
        TensorInfo info = new TensorInfo("w", DType.F32, List.of(8L + extra * 2 + 1, 6L), 0, (8L + extra * 2 + 1) * 6 * 4);
        CheckpointSource.Location location = new CheckpointSource.Location("f", null, 0, info,
                Optional.of(TensorCrcCalculator.compute(info, MemorySegment.ofArray(new byte[(int) info.byteSize()]))));
        ShardCheck check = ShardCheck.of(location, ShardRead.of(info, Split.DIM0, 1, 2, true));
        assertThat(check.byClient()).isFalse();
    }

    private static byte[] gather(byte[] bytes, ShardRead read) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < read.count(); i++) {
            out.write(bytes, (int) (read.offset() + i * read.stride()), (int) read.blockLength());
        }
        return out.toByteArray();
    }
}
