package io.weightstore.weights.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weightstore.format.DType;
import io.weightstore.format.TensorInfo;
import io.weightstore.weights.CheckpointException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bytes a rank reads of one tensor, at the edges of what a header may declare. */
class ShardReadTest {
    @Test
    void everyRanksColumnsOfATensorOfNoElementsAreNoBytesAtItsStart() throws CheckpointException {
        TensorInfo empty = new TensorInfo("o_proj.weight", DType.F32, List.of(0L, 4L, 3L), 64, 64);
        for (int rank = 0; rank < 2; rank++) {
            ShardRead read = ShardRead.of(empty, Split.DIM1, rank, 2, false);
            assertThat(read.bytes()).isZero();
            assertThat(read.offset()).as("rank %d", rank).isZero();
            assertThat(read.shape()).containsExactly(0L, 2L, 3L);
        }
    }

    @Test
    void aZeroDimensionBesideHugeOnesReadsNothingInsteadOfOverflowing() throws CheckpointException {
        TensorInfo empty = new TensorInfo("down_proj.weight", DType.I8, List.of(1L << 32, 2L, 0L), 4, 4);
        assertThat(ShardRead.of(empty, Split.DIM1, 1, 2, false).bytes()).isZero();
    }

    @Test
    void aColumnSplitOfMoreRowsThanALoadReadsIsRefusedNamingTheTensor() {
        long rows = (long) Integer.MAX_VALUE + 1;
        TensorInfo tall = new TensorInfo("tall.weight", DType.U8, List.of(rows, 2L), 0, rows * 2);
        assertThatThrownBy(() -> ShardRead.of(tall, Split.DIM1, 0, 2, false)).isInstanceOf(CheckpointException.class)
                .hasMessageContaining("tensor tall.weight").hasMessageContaining(rows + " blocks");
    }
}
