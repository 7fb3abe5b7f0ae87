package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The CRC32C of each part of a range read through the client, from the recorded CRCs of the whole
 * blocks inside it and the bytes of the pieces it must hash, is the CRC32C of the part's bytes,
 * wherever the range and its parts start and end among slices and blocks (slices whose last block
 * is short, parts of no bytes and blocks shared by many parts included).
 */
class CheckedBlocksProperties {
    private static final int BLOCK = 64;

    @Property(tries = 500)
    void theJoinedCrcOfEveryPartIsTheCrcOfItsBytes(@ForAll @IntRange(min = 1, max = 2000) int size,
            @ForAll @IntRange(min = 1, max = 5) int blocksPerSlice, @ForAll @IntRange(min = 1, max = 12) int parts, @ForAll long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        random.nextBytes(bytes);
        ObjectMeta object = object(bytes, blocksPerSlice * BLOCK);
        int start = random.nextInt(size);
        int length = random.nextInt(size - start + 1);
        long[] lengths = cut(length, parts, random);
        int[] crcs = CheckedBlocks.crc32cs(object, start, lengths, MemorySegment.ofArray(bytes).asSlice(start, length));
        long at = start;
        for (int i = 0; i < parts; i++) {
            assertThat(crcs[i]).as("part %d of %s", i, lengths).isEqualTo(Checksums.crc32c(MemorySegment.ofArray(bytes).asSlice(at, lengths[i])));
            at += lengths[i];
        }
    }

    @Property(tries = 50)
    void wholeBlocksCountAsTheirRecordedCrcsSinceTheClientCheckedThemOnArrival(@ForAll long seed) {
        byte[] bytes = new byte[10 * BLOCK];
        new SplittableRandom(seed).nextBytes(bytes);
        ObjectMeta object = object(bytes, 4 * BLOCK);
        int start = BLOCK / 2;
        long[] one = {8 * BLOCK};
        int expected = crcOf(object, start, one, bytes)[0];
        byte[] received = bytes.clone();
        // Bytes of a whole block in the range, as if a node changed them: the arrival check refuses these, not this pass.
        received[3 * BLOCK + 7] ^= 1;
        assertThat(crcOf(object, start, one, received)[0]).isEqualTo(expected);
        // Bytes of a block at the range's end, which only the node checked, are hashed here.
        received[start + 1] ^= 1;
        assertThat(crcOf(object, start, one, received)[0]).isNotEqualTo(expected);
    }

    /** A block two parts share: the smaller piece is hashed, so a change there shows in both parts' CRCs. */
    @Property(tries = 50)
    void aBlockTwoPartsShareIsHashedInItsSmallerPiece(@ForAll long seed) {
        byte[] bytes = new byte[10 * BLOCK];
        new SplittableRandom(seed).nextBytes(bytes);
        ObjectMeta object = object(bytes, 4 * BLOCK);
        int boundary = 2 * BLOCK + BLOCK / 4; // a quarter into block 2: the first part's piece is the smaller
        long[] lengths = {boundary, 10 * BLOCK - boundary};
        int[] expected = crcOf(object, 0, lengths, bytes);
        byte[] received = bytes.clone();
        received[boundary + 5] ^= 1; // in the larger piece, which the arrival check owns
        assertThat(crcOf(object, 0, lengths, received)).isEqualTo(expected);
        received = bytes.clone();
        received[boundary - 5] ^= 1; // in the smaller piece, hashed here
        int[] changed = crcOf(object, 0, lengths, received);
        assertThat(changed[0]).isNotEqualTo(expected[0]);
        assertThat(changed[1]).isNotEqualTo(expected[1]);
    }

    private static int[] crcOf(ObjectMeta object, int start, long[] lengths, byte[] received) {
        long length = 0;
        for (long l : lengths) {
            length += l;
        }
        return CheckedBlocks.crc32cs(object, start, lengths, MemorySegment.ofArray(received).asSlice(start, length));
    }

    /** {@code length} cut into {@code parts} random lengths, some of them empty. */
    private static long[] cut(int length, int parts, SplittableRandom random) {
        long[] cuts = new long[parts + 1];
        for (int i = 1; i < parts; i++) {
            cuts[i] = random.nextInt(length + 1);
        }
        cuts[parts] = length;
        Arrays.sort(cuts, 1, parts);
        long[] lengths = new long[parts];
        for (int i = 0; i < parts; i++) {
            lengths[i] = cuts[i + 1] - cuts[i];
        }
        return lengths;
    }

    private static ObjectMeta object(byte[] bytes, int sliceSize) {
        List<SliceMeta> slices = new ArrayList<>();
        for (int offset = 0; offset < bytes.length; offset += sliceSize) {
            int length = Math.min(sliceSize, bytes.length - offset);
            int[] crcs = Checksums.blockCrcs(MemorySegment.ofArray(bytes).asSlice(offset, length), BLOCK);
            slices.add(new SliceMeta(offset, length, List.of(new ReplicaRef("n1", offset)), BlockCrcs.of(crcs)));
        }
        return new ObjectMeta("k", bytes.length, sliceSize, BLOCK, slices, false, Instant.EPOCH, 1);
    }
}
