package io.weightstore.weights.loader;

import java.util.Locale;

/** How a tensor is divided among tensor-parallel ranks. */
public enum Split {
    /** Rows: each rank reads one contiguous range. */
    DIM0,
    /** Columns: each rank reads one strided range. */
    DIM1,
    /** Every rank reads the whole tensor. */
    REPLICATE;

    public static Split parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "dim0", "0", "rows" -> DIM0;
            case "dim1", "1", "columns" -> DIM1;
            case "replicate", "none" -> REPLICATE;
            default -> throw new IllegalArgumentException("split must be dim0, dim1 or replicate, found '" + text + "'");
        };
    }

    public int dimension() {
        return switch (this) {
            case DIM0 -> 0;
            case DIM1 -> 1;
            case REPLICATE -> -1;
        };
    }
}
