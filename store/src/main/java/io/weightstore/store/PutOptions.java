package io.weightstore.store;

/**
 * How to write an object.
 *
 * @param sliceSize 0 for the master's default (64 MiB)
 * @param replace overwrite an existing object of the same key
 * @param pin exempt the object from eviction
 */
public record PutOptions(int replicas, long sliceSize, boolean replace, boolean pin) {
    public PutOptions {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
        if (sliceSize < 0) {
            throw new IllegalArgumentException("slice size must be >= 0: sliceSize=" + sliceSize);
        }
    }

    public static PutOptions defaults() {
        return new PutOptions(1, 0, false, false);
    }

    public PutOptions withReplicas(int n) {
        return new PutOptions(n, sliceSize, replace, pin);
    }

    public PutOptions withSliceSize(long size) {
        return new PutOptions(replicas, size, replace, pin);
    }

    public PutOptions withReplace(boolean value) {
        return new PutOptions(replicas, sliceSize, value, pin);
    }

    public PutOptions withPin(boolean value) {
        return new PutOptions(replicas, sliceSize, replace, value);
    }
}
