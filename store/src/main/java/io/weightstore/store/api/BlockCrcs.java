package io.weightstore.store.api;

import java.util.Arrays;

/** The CRC32C of each checksum block of a slice, in order; the last block may be short. Immutable. */
public final class BlockCrcs {
    private static final BlockCrcs NONE = new BlockCrcs(new int[0]);

    private final int[] crcs;

    private BlockCrcs(int[] crcs) {
        this.crcs = crcs;
    }

    public static BlockCrcs of(int... crcs) {
        return crcs.length == 0 ? NONE : new BlockCrcs(crcs.clone());
    }

    /** No checksums yet: the slice of a put that is not sealed. */
    public static BlockCrcs none() {
        return NONE;
    }

    public int count() {
        return crcs.length;
    }

    public int get(int block) {
        return crcs[block];
    }

    public int[] toArray() {
        return crcs.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BlockCrcs that && Arrays.equals(crcs, that.crcs);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(crcs);
    }

    @Override
    public String toString() {
        return "BlockCrcs[" + crcs.length + " blocks]";
    }
}
