package io.weightstore.store.api;

import java.time.Instant;

/**
 * When an object was last located for reading, as the master persists it (no more often than once
 * a minute per object): eviction takes the least recently read first, and after a restart or a
 * take-over the order must still be the readers', not the objects' creation order.
 */
public record ReadTime(String key, Instant readAt) {}
