package io.weightstore.weights.checks;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The CRC32C of one tensor's bytes, and of each shard a tensor-parallel rank reads of it when the
 * tensor splits evenly over a world of 2, 4 or 8 ranks: {@code rows.get(t).get(r)} is rank r of t's
 * rows (a contiguous range), {@code columns.get(t).get(r)} its columns (dim 1: a piece of every row,
 * gathered in row order, as a strided read delivers them). A split that is not in the maps (uneven,
 * not on byte boundaries, or another world size) has no recorded CRC.
 *
 * @param crc32c of the whole tensor
 */
public record TensorCrcs(String name, int crc32c, Map<Integer, List<Integer>> rows, Map<Integer, List<Integer>> columns) {
    /** World sizes the import records shards for. */
    public static final List<Integer> WORLD_SIZES = List.of(2, 4, 8);

    public TensorCrcs {
        rows = Map.copyOf(rows);
        columns = Map.copyOf(columns);
        rows.forEach((t, crcs) -> requireOnePerRank("rows", t, crcs));
        columns.forEach((t, crcs) -> requireOnePerRank("columns", t, crcs));
    }

    private void requireOnePerRank(String split, int worldSize, List<Integer> crcs) {
        if (crcs.size() != worldSize) {
            throw new IllegalArgumentException("tensor " + name + ": " + split + " of a world of " + worldSize + " need "
                    + worldSize + " CRCs, found " + crcs.size());
        }
    }

    /** Rank {@code rank} of {@code worldSize}'s rows, if recorded. */
    public OptionalInt row(int worldSize, int rank) {
        return pick(rows, worldSize, rank);
    }

    /** Rank {@code rank} of {@code worldSize}'s columns, if recorded. */
    public OptionalInt column(int worldSize, int rank) {
        return pick(columns, worldSize, rank);
    }

    private static OptionalInt pick(Map<Integer, List<Integer>> shards, int worldSize, int rank) {
        List<Integer> crcs = shards.get(worldSize);
        return crcs == null || rank < 0 || rank >= crcs.size() ? OptionalInt.empty() : OptionalInt.of(crcs.get(rank));
    }
}
