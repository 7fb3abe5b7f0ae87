package io.weightstore.store.checksum;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Joining CRC32Cs must give exactly the CRC32C of the joined bytes, for any cut, and by either way of joining. */
class Crc32cCombineProperties {
    private static byte[] random(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    private static int crc(byte[] bytes, int from, int to) {
        return Checksums.crc32c(MemorySegment.ofArray(bytes).asSlice(from, to - from));
    }

    @Property(tries = 500)
    void combinedEqualsTheCrcOfTheConcatenation(@ForAll @IntRange(max = 5000) int length, @ForAll @IntRange(max = 100) int cutPercent,
            @ForAll long seed) {
        byte[] bytes = random(length, seed);
        int cut = length * cutPercent / 100;
        int a = crc(bytes, 0, cut);
        int b = crc(bytes, cut, length);
        assertThat(Crc32cCombine.combine(a, b, length - cut)).isEqualTo(crc(bytes, 0, length));
        assertThat(Crc32cCombine.forLength(length - cut).combine(a, b)).isEqualTo(crc(bytes, 0, length));
    }

    @Property(tries = 500)
    void eitherPieceFollowsFromTheWholeAndTheOther(@ForAll @IntRange(max = 5000) int length, @ForAll @IntRange(max = 100) int cutPercent,
            @ForAll long seed) {
        byte[] bytes = random(length, seed);
        int cut = length * cutPercent / 100;
        int a = crc(bytes, 0, cut);
        int b = crc(bytes, cut, length);
        int whole = crc(bytes, 0, length);
        assertThat(Crc32cCombine.secondOf(whole, a, length - cut)).isEqualTo(b);
        assertThat(Crc32cCombine.firstOf(whole, b, length - cut)).isEqualTo(a);
    }

    /** Undoing a shift by lengths far past anything a test can hash. */
    @Property(tries = 200)
    void firstOfUndoesCombineForHugeLengths(@ForAll int crcA, @ForAll int crcB, @ForAll @LongRange(max = 1L << 50) long lengthB) {
        assertThat(Crc32cCombine.firstOf(Crc32cCombine.combine(crcA, crcB, lengthB), crcB, lengthB)).isEqualTo(crcA);
    }

    /** A joiner's tables, built from single bits, agree with the multiply for every register and length. */
    @Property(tries = 200)
    void aJoinerForOneLengthJoinsAsTheMultiplyDoes(@ForAll int crcA, @ForAll int crcB, @ForAll @LongRange(max = 1L << 50) long lengthB) {
        assertThat(Crc32cCombine.forLength(lengthB).combine(crcA, crcB)).isEqualTo(Crc32cCombine.combine(crcA, crcB, lengthB));
    }

    @Property(tries = 200)
    void foldingEqualPiecesEqualsTheWhole(@ForAll @IntRange(min = 1, max = 40) int pieces, @ForAll @IntRange(max = 300) int pieceLength,
            @ForAll long seed) {
        byte[] bytes = random(pieces * pieceLength, seed);
        Crc32cCombine join = Crc32cCombine.forLength(pieceLength);
        int folded = crc(bytes, 0, pieceLength);
        for (int i = 1; i < pieces; i++) {
            folded = join.combine(folded, crc(bytes, i * pieceLength, (i + 1) * pieceLength));
        }
        assertThat(folded).isEqualTo(crc(bytes, 0, bytes.length));
    }

    /** Lengths far past anything a test can hash: shifting by n then m is shifting by n + m. */
    @Property(tries = 200)
    void shiftsAddUpForHugeLengths(@ForAll int crc, @ForAll @LongRange(max = 1L << 50) long n, @ForAll @LongRange(max = 1L << 50) long m) {
        int twice = Crc32cCombine.combine(Crc32cCombine.combine(crc, 0, n), 0, m);
        assertThat(twice).isEqualTo(Crc32cCombine.combine(crc, 0, n + m));
        assertThat(Crc32cCombine.forLength(n).combine(crc, 0)).isEqualTo(Crc32cCombine.combine(crc, 0, n));
    }

    /** A column shard: one piece of every row, joined in row order. */
    @Property(tries = 200)
    void columnShardFromCellsEqualsTheCrcOfTheGatheredBytes(@ForAll @IntRange(min = 1, max = 30) int rows,
            @ForAll @IntRange(min = 1, max = 8) int cellsPerRow, @ForAll @IntRange(max = 64) int cell, @ForAll long seed) {
        byte[] bytes = random(rows * cellsPerRow * cell, seed);
        int column = (int) Math.floorMod(seed, (long) cellsPerRow);
        List<Byte> gathered = new ArrayList<>();
        int folded = 0;
        Crc32cCombine join = Crc32cCombine.forLength(cell);
        for (int r = 0; r < rows; r++) {
            int from = (r * cellsPerRow + column) * cell;
            for (int i = from; i < from + cell; i++) {
                gathered.add(bytes[i]);
            }
            folded = join.combine(folded, crc(bytes, from, from + cell));
        }
        byte[] shard = new byte[gathered.size()];
        for (int i = 0; i < shard.length; i++) {
            shard[i] = gathered.get(i);
        }
        assertThat(folded).isEqualTo(crc(shard, 0, shard.length));
    }

    @Example
    void emptyPiecesChangeNothing() {
        int crc = Checksums.crc32c(MemorySegment.ofArray("123456789".getBytes()));
        assertThat(Crc32cCombine.combine(crc, 0, 0)).isEqualTo(crc);
        assertThat(Crc32cCombine.combine(0, crc, 9)).isEqualTo(crc);
    }
}
