package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import io.weightstore.weights.checks.TensorCrcTable;
import io.weightstore.weights.checks.TensorCrcs;
import io.weightstore.weights.loader.ShardPlan;
import io.weightstore.weights.loader.Split;
import java.util.List;

/**
 * Which {@link ColumnLayout}s an import writes: one per world size in {@code worldSizes} for each safetensors file with
 * tensors that {@code plan} splits by columns. Each world size must be one the CRC tables record shards for, so every
 * shard of a layout has a CRC its reader checks.
 */
public record ColumnLayoutPlan(List<Integer> worldSizes, ShardPlan plan) {
    /** No layouts. */
    public static final ColumnLayoutPlan NONE = new ColumnLayoutPlan(List.of(), ShardPlan.replicateAll());

    public ColumnLayoutPlan {
        worldSizes = worldSizes.stream().distinct().sorted().toList();
        for (int worldSize : worldSizes) {
            if (!TensorCrcs.WORLD_SIZES.contains(worldSize)) {
                throw new IllegalArgumentException("a column layout is for " + TensorCrcs.WORLD_SIZES.stream().map(String::valueOf)
                        .reduce((a, b) -> a + ", " + b).orElseThrow() + " ranks: worldSize=" + worldSize);
            }
        }
    }

    /**
     * The tensors of {@code header} laid out for {@code worldSize} ranks, in the file's order: those the plan splits by
     * columns whose column shards at that world size {@code table} records (an even split on byte boundaries).
     */
    public List<TensorInfo> tensors(SafetensorsHeader header, TensorCrcTable table, int worldSize) {
        return header.tensors().stream()
                .filter(t -> t.byteSize() > 0 && plan.split(t.name()) == Split.DIM1)
                .filter(t -> table.tensor(t.name()).map(c -> c.column(worldSize, 0).isPresent()).orElse(false))
                .toList();
    }

    /** At most the bytes one layout of a file of {@code header} takes: every tensor the plan splits by columns. */
    public long mostBytes(SafetensorsHeader header) {
        return header.tensors().stream().filter(t -> plan.split(t.name()) == Split.DIM1).mapToLong(TensorInfo::byteSize).sum();
    }
}
