package io.weightstore.store.api;

import java.time.Instant;

/**
 * A copy of a slice that a scrubber, or a node copying from it, found bad, as the master persists it
 * until the copy is rewritten or dropped: a master that restarts, or takes over, must not count it good.
 * {@code version} is the object's, so a record left over from a replaced object marks nothing.
 */
public record BadCopy(String key, Instant version, int slice, ReplicaRef replica) {}
