package io.weightstore.store.api;

/**
 * What long work reports as it goes: {@code advanced} always gets the bytes done since the last
 * call (a delta, never a running total). Called from several threads at once.
 */
@FunctionalInterface
public interface Progress {
    Progress NONE = bytes -> {};

    void advanced(long bytes);

    /** Before the first byte, when the work knows its total. */
    default void started(long totalBytes) {}
}
