package io.weightstore.store.api;

import java.time.Instant;

/**
 * A copy on a node for its scrubber to check where it lies: slice {@code slice} of {@code key} as
 * sealed at {@code version}, {@code length} bytes at {@code offset} of the node's pool, against the
 * slice's block checksums.
 */
public record ScrubTask(String key, Instant version, int slice, long offset, long length, int checksumBlockSize, BlockCrcs crcs) {}
