package io.weightstore.weights.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.format.DType;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.checksum.Checksums;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * One pass with joined CRCs must record exactly the CRC32C of each shard's bytes, read the plain way:
 * rows as one range, columns gathered row by row. And exactly the splits that are even and on byte
 * boundaries.
 */
class TensorCrcCalculatorProperties {
    /** A tensor's header entry and bytes. */
    record Sample(TensorInfo info, byte[] bytes) {}

    @Provide
    Arbitrary<Sample> tensors() {
        Arbitrary<DType> dtypes = Arbitraries.of(DType.F32, DType.BF16, DType.I8, DType.F4, DType.F64);
        // Dimensions biased to multiples of 2, 4 and 8, as real ones are, with odd ones and zeros among them.
        Arbitrary<Long> dims = Arbitraries.oneOf(Arbitraries.longs().between(0, 13), Arbitraries.longs().between(1, 6).map(d -> d * 8));
        Arbitrary<List<Long>> shapes = dims.list().ofMinSize(0).ofMaxSize(3);
        return Combinators.combine(dtypes, shapes, Arbitraries.longs()).as((dtype, shape, seed) -> {
            long numel = shape.stream().reduce(1L, Math::multiplyExact);
            if (numel * dtype.bits() % 8 != 0) {
                return null;
            }
            byte[] bytes = new byte[(int) (numel * dtype.bits() / 8)];
            new SplittableRandom(seed).nextBytes(bytes);
            return new Sample(new TensorInfo("t", dtype, shape, 0, bytes.length), bytes);
        }).filter(s -> s != null);
    }

    private static int crc(byte[] bytes) {
        return Checksums.crc32c(MemorySegment.ofArray(bytes));
    }

    private static boolean even(long size, int t, long bitsEach) {
        return size > 0 && size % t == 0 && size / t * bitsEach % 8 == 0;
    }

    @Property(tries = 400)
    void everyRecordedShardIsTheCrcOfItsBytes(@ForAll("tensors") Sample sample) throws IOException {
        assertEveryRecordedShardIsTheCrcOfItsBytes(sample);
    }

    /** Rows past one batch of cells hashed at once (4,096 cells), ending part-way into the last; and cells long enough to fold. */
    @Example
    void tensorsOfManyRowsAreHashedAcrossBatches() throws IOException {
        for (List<Long> shape : List.of(List.of(1030L, 16L), List.of(4100L, 2L), List.of(9L, 8192L))) {
            long numel = shape.stream().reduce(1L, Math::multiplyExact);
            byte[] bytes = new byte[(int) numel * 2];
            new SplittableRandom(numel).nextBytes(bytes);
            assertEveryRecordedShardIsTheCrcOfItsBytes(new Sample(new TensorInfo("t", DType.BF16, shape, 0, bytes.length), bytes));
        }
    }

    /**
     * A row longer than the 4 MiB asked at once (cells shorter and longer than that) is taken a piece at a time
     * too: a file's reader keeps one buffer of that size, whatever the tensor.
     */
    @Example
    void rowsLongerThanABatchAreAskedForABatchAtATime() throws IOException {
        for (Sample sample : List.of(sample(DType.BF16, List.of(3L, 3L << 20)), sample(DType.I8, List.of(1L, 9L << 22)))) {
            long[] longest = {0};
            MemorySegment bytes = MemorySegment.ofArray(sample.bytes());
            TensorCrcs pieceByPiece = TensorCrcCalculator.compute(sample.info(), (offset, length) -> {
                longest[0] = Math.max(longest[0], length);
                return bytes.asSlice(offset, length);
            });
            assertThat(longest[0]).as("longest piece asked of %s", sample.info().shape())
                    .isLessThanOrEqualTo(TensorCrcCalculator.BYTES_PER_BATCH);
            assertThat(pieceByPiece).isEqualTo(TensorCrcCalculator.compute(sample.info(), bytes));
            assertEveryRecordedShardIsTheCrcOfItsBytes(sample);
        }
    }

    private static Sample sample(DType dtype, List<Long> shape) {
        byte[] bytes = new byte[(int) (shape.stream().reduce(1L, Math::multiplyExact) * dtype.bits() / 8)];
        new SplittableRandom(bytes.length).nextBytes(bytes);
        return new Sample(new TensorInfo("t", dtype, shape, 0, bytes.length), bytes);
    }

    private static void assertEveryRecordedShardIsTheCrcOfItsBytes(Sample sample) throws IOException {
        TensorInfo info = sample.info();
        byte[] bytes = sample.bytes();
        TensorCrcs crcs = TensorCrcCalculator.compute(info, MemorySegment.ofArray(bytes));
        assertThat(crcs.crc32c()).isEqualTo(crc(bytes));

        List<Long> shape = info.shape();
        long rows = shape.isEmpty() ? 0 : shape.getFirst();
        long rowBits = shape.isEmpty() ? 0 : info.dtype().bits() * shape.stream().skip(1).reduce(1L, Math::multiplyExact);
        long columns = shape.size() < 2 ? 0 : shape.get(1);
        long cellBits = shape.size() < 2 ? 0 : info.dtype().bits() * shape.stream().skip(2).reduce(1L, Math::multiplyExact);
        for (int t : TensorCrcs.WORLD_SIZES) {
            boolean rowsRecorded = bytes.length > 0 && even(rows, t, rowBits);
            assertThat(crcs.rows().containsKey(t)).as("rows of %d for shape %s %s", t, shape, info.dtype()).isEqualTo(rowsRecorded);
            boolean columnsRecorded = bytes.length > 0 && even(columns, t, cellBits);
            assertThat(crcs.columns().containsKey(t)).as("columns of %d for shape %s %s", t, shape, info.dtype())
                    .isEqualTo(columnsRecorded);
            for (int rank = 0; rank < t; rank++) {
                if (rowsRecorded) {
                    int block = bytes.length / t;
                    byte[] shard = Arrays.copyOfRange(bytes, rank * block, (rank + 1) * block);
                    assertThat(crcs.row(t, rank)).hasValue(crc(shard));
                }
                if (columnsRecorded) {
                    int rowBytes = (int) (bytes.length / rows);
                    int piece = rowBytes / t;
                    ByteArrayOutputStream shard = new ByteArrayOutputStream();
                    for (int row = 0; row < rows; row++) {
                        shard.write(bytes, row * rowBytes + rank * piece, piece);
                    }
                    assertThat(crcs.column(t, rank)).hasValue(crc(shard.toByteArray()));
                }
            }
        }
    }

    @Property(tries = 100)
    void aTableReadsBackAsWritten(@ForAll("tensors") Sample a, @ForAll("tensors") Sample b) throws IOException {
        TensorCrcs first = TensorCrcCalculator.compute(a.info(), MemorySegment.ofArray(a.bytes()));
        TensorInfo other = new TensorInfo("u", b.info().dtype(), b.info().shape(), 0, b.bytes().length);
        TensorCrcs second = TensorCrcCalculator.compute(other, MemorySegment.ofArray(b.bytes()));
        TensorCrcTable table = TensorCrcTable.fromJson(TensorCrcTable.of(OptionalInt.empty(), List.of(first, second)).toJson(), "test");
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.tensor("t")).hasValue(first);
        assertThat(table.tensor("u")).hasValue(second);
    }
}
