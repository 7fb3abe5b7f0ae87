package io.weightstore.store.api;

/**
 * How to write an object.
 *
 * @param sliceSize 0 for the master's default (64 MiB)
 * @param replace overwrite an existing object of the same key
 * @param pin exempt the object from eviction
 * @param writer who writes, or empty: a writer known to be dead has its unfinished puts reclaimed at once
 */
public record PutOptions(int replicas, long sliceSize, boolean replace, boolean pin, String writer) {
    public PutOptions {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
        if (sliceSize < 0) {
            throw new IllegalArgumentException("slice size must be >= 0: sliceSize=" + sliceSize);
        }
        writer = writer == null ? "" : writer;
    }

    public static PutOptions defaults() {
        return new PutOptions(1, 0, false, false, "");
    }

    public PutOptions withReplicas(int n) {
        return new PutOptions(n, sliceSize, replace, pin, writer);
    }

    public PutOptions withSliceSize(long size) {
        return new PutOptions(replicas, size, replace, pin, writer);
    }

    public PutOptions withReplace(boolean value) {
        return new PutOptions(replicas, sliceSize, value, pin, writer);
    }

    public PutOptions withPin(boolean value) {
        return new PutOptions(replicas, sliceSize, replace, value, writer);
    }

    public PutOptions withWriter(String value) {
        return new PutOptions(replicas, sliceSize, replace, pin, value);
    }
}
