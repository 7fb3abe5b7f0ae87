package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.TensorInfo;
import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.checks.TensorCrcCalculator;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Which blocks a batch check takes as checked on arrival follows from which parts were read in one
 * range: two tensors that share a block and were read together trust the block's recorded CRC for
 * its larger piece; read apart, neither read held the block whole, so every byte of it is hashed.
 */
class BatchCheckTest {
    private static final int BLOCK = 64;
    private static final int SIZE = 10 * BLOCK;
    /** Inside block 2: the first tensor has its first 16 bytes, the second the other 48. */
    private static final int BOUNDARY = 2 * BLOCK + 16;

    private final byte[] stored = new byte[SIZE];
    private final ObjectMeta object;

    BatchCheckTest() {
        new SplittableRandom(5).nextBytes(stored);
        int[] crcs = Checksums.blockCrcs(MemorySegment.ofArray(stored), BLOCK);
        object = new ObjectMeta("k", SIZE, SIZE, BLOCK, List.of(new SliceMeta(0, SIZE, List.of(new ReplicaRef("n1", 0)), BlockCrcs.of(crcs))),
                false, Instant.EPOCH, 1);
    }

    private List<BatchCheck.Part> parts(boolean secondContinuesRead) {
        return List.of(part("first", 0, BOUNDARY, false), part("second", BOUNDARY, SIZE - BOUNDARY, secondContinuesRead));
    }

    private BatchCheck.Part part(String name, int start, int length, boolean continuesRead) {
        return part(name, start, length, continuesRead, object);
    }

    private BatchCheck.Part part(String name, int start, int length, boolean continuesRead, ObjectMeta object) {
        TensorInfo info = new TensorInfo(name, DType.I8, List.of((long) length), start, start + length);
        CheckpointSource.Location location = new CheckpointSource.Location("f.safetensors", null, 0, info,
                Optional.of(TensorCrcCalculator.compute(info, MemorySegment.ofArray(stored).asSlice(start, length))));
        return new BatchCheck.Part(ShardCheck.of(location, ShardRead.whole(info)), start, length, object, start, continuesRead);
    }

    /** The stored bytes with one changed in the second tensor's larger piece of the block they share. */
    private byte[] changedInTheSharedBlock() {
        byte[] received = stored.clone();
        received[BOUNDARY + 20] ^= 1;
        return received;
    }

    @Test
    void readInOneRangeTheSharedBlocksLargerPieceIsTheArrivalChecksToRefuse() {
        // The client's arrival check refuses such bytes before this pass; this pass joins the recorded CRC.
        assertThatCode(() -> BatchCheck.verify(parts(true), MemorySegment.ofArray(changedInTheSharedBlock()))).doesNotThrowAnyException();
    }

    @Test
    void readApartEveryByteOfTheSharedBlockIsHashedAndAChangeIsCaught() {
        assertThatThrownBy(() -> BatchCheck.verify(parts(false), MemorySegment.ofArray(changedInTheSharedBlock())))
                .isInstanceOf(CheckpointException.class).hasMessageContaining("tensor second");
    }

    @Test
    void theStoredBytesPassEitherWay() {
        assertThatCode(() -> BatchCheck.verify(parts(true), MemorySegment.ofArray(stored))).doesNotThrowAnyException();
        assertThatCode(() -> BatchCheck.verify(parts(false), MemorySegment.ofArray(stored))).doesNotThrowAnyException();
    }

    @Test
    void partsOfOneReadWhoseObjectWasRelocatedBetweenThemAreCheckedAsOneRead() {
        // The same object as written, its copy now on another node: the record a part taken after a relocation holds.
        ObjectMeta relocated = object.withSlices(List.of(object.slices().getFirst().withReplicas(List.of(new ReplicaRef("n2", 4096)))));
        List<BatchCheck.Part> parts = List.of(part("first", 0, BOUNDARY, false), part("second", BOUNDARY, SIZE - BOUNDARY, true, relocated));
        assertThatCode(() -> BatchCheck.verify(parts, MemorySegment.ofArray(stored))).doesNotThrowAnyException();

        ObjectMeta rewritten = object.withCreatedAt(Instant.EPOCH.plusMillis(1));
        List<BatchCheck.Part> mixed = List.of(part("first", 0, BOUNDARY, false), part("second", BOUNDARY, SIZE - BOUNDARY, true, rewritten));
        assertThatThrownBy(() -> BatchCheck.verify(mixed, MemorySegment.ofArray(stored))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("continues no read");
    }
}
