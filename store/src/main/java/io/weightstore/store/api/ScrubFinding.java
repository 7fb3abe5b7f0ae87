package io.weightstore.store.api;

import java.time.Instant;

/**
 * A copy that a node's scrubber found bad: slice {@code slice} of the object {@code key} as sealed
 * at {@code version}, at {@code offset} in the node's pool, and what did not match.
 */
public record ScrubFinding(String key, Instant version, int slice, long offset, String problem) {}
