package io.weightstore.store.api;

/**
 * The range of a copy that left its object's metadata (moved, trimmed, dropped) while readers may
 * still read it, as the master persists it: the range stays taken while any lease on {@code key}
 * up to {@code leaseMark} lives, even across a master's restart or a change of leader.
 */
public record RetiredRange(String key, long leaseMark, ReplicaRef replica, long length) {}
