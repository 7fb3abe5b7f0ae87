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
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The CRC32C of a range read through the client, from the recorded CRCs of the whole blocks inside it
 * and the bytes of the blocks at its ends, is the CRC32C of the range's bytes, wherever the range
 * starts and ends among slices and blocks (slices whose last block is short included).
 */
class CheckedBlocksProperties {
    private static final int BLOCK = 64;

    @Property(tries = 300)
    void theJoinedCrcOfAnyRangeIsTheCrcOfItsBytes(@ForAll @IntRange(min = 1, max = 2000) int size,
            @ForAll @IntRange(min = 1, max = 5) int blocksPerSlice, @ForAll long seed) {
        byte[] bytes = new byte[size];
        SplittableRandom random = new SplittableRandom(seed);
        random.nextBytes(bytes);
        ObjectMeta object = object(bytes, blocksPerSlice * BLOCK);
        int start = random.nextInt(size);
        int length = random.nextInt(size - start + 1);
        MemorySegment range = MemorySegment.ofArray(bytes).asSlice(start, length);
        assertThat(CheckedBlocks.crc32c(object, start, range)).isEqualTo(Checksums.crc32c(range));
    }

    @Property(tries = 50)
    void wholeBlocksCountAsTheirRecordedCrcsSinceTheClientCheckedThemOnArrival(@ForAll long seed) {
        byte[] bytes = new byte[10 * BLOCK];
        new SplittableRandom(seed).nextBytes(bytes);
        ObjectMeta object = object(bytes, 4 * BLOCK);
        int start = BLOCK / 2;
        int length = 8 * BLOCK;
        int expected = Checksums.crc32c(MemorySegment.ofArray(bytes).asSlice(start, length));
        byte[] received = bytes.clone();
        // Bytes of a whole block in the range, as if a node changed them: the arrival check refuses these, not this pass.
        received[3 * BLOCK + 7] ^= 1;
        assertThat(CheckedBlocks.crc32c(object, start, MemorySegment.ofArray(received).asSlice(start, length))).isEqualTo(expected);
        // Bytes of a block at the range's end, which only the node checked, are hashed here.
        received[start + 1] ^= 1;
        assertThat(CheckedBlocks.crc32c(object, start, MemorySegment.ofArray(received).asSlice(start, length))).isNotEqualTo(expected);
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
