package io.weightstore.store.api;

/**
 * How to write an object.
 *
 * @param sliceSize 0 for the master's default (64 MiB)
 * @param replace overwrite an existing object of the same key
 * @param pin exempt the object from eviction
 * @param writer who writes, or empty: a writer known to be dead has its unfinished puts reclaimed at once
 * @param lock the name of a lock {@code writer} holds, or empty: the master starts and seals the put only
 *     while the writer still holds it, so a writer that lost its lock (paused past its expiry, and
 *     another took it) cannot write over the next holder's work
 * @param autoReplicas let the master add copies beyond {@code replicas} while many readers hold the
 *     object, as {@link MasterApi#setReplicas} does: a replace writes its new files this way when the
 *     version before had it, so the count an admin chose outlives the files it was set on
 */
public record PutOptions(int replicas, long sliceSize, boolean replace, boolean pin, String writer, String lock,
        boolean autoReplicas) {
    public PutOptions {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
        if (sliceSize < 0) {
            throw new IllegalArgumentException("slice size must be >= 0: sliceSize=" + sliceSize);
        }
        writer = writer == null ? "" : writer;
        lock = lock == null ? "" : lock;
    }

    public PutOptions(int replicas, long sliceSize, boolean replace, boolean pin, String writer) {
        this(replicas, sliceSize, replace, pin, writer, "", false);
    }

    public static PutOptions defaults() {
        return new PutOptions(1, 0, false, false, "");
    }

    public PutOptions withReplicas(int n) {
        return new PutOptions(n, sliceSize, replace, pin, writer, lock, autoReplicas);
    }

    public PutOptions withSliceSize(long size) {
        return new PutOptions(replicas, size, replace, pin, writer, lock, autoReplicas);
    }

    public PutOptions withReplace(boolean value) {
        return new PutOptions(replicas, sliceSize, value, pin, writer, lock, autoReplicas);
    }

    public PutOptions withPin(boolean value) {
        return new PutOptions(replicas, sliceSize, replace, value, writer, lock, autoReplicas);
    }

    public PutOptions withWriter(String value) {
        return new PutOptions(replicas, sliceSize, replace, pin, value, lock, autoReplicas);
    }

    /** Writes as {@code writer}, only while it holds the lock {@code name}. */
    public PutOptions withWriterUnderLock(String writer, String name) {
        return new PutOptions(replicas, sliceSize, replace, pin, writer, name, autoReplicas);
    }

    public PutOptions withAutoReplicas(boolean value) {
        return new PutOptions(replicas, sliceSize, replace, pin, writer, lock, value);
    }
}
