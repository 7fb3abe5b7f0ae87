package io.weightstore.store.api;

/**
 * A registered node as the master persists it: what the node registered with, and whether an
 * operator is draining it, so that a drain outlives the master that was asked for it.
 */
public record StoredNode(NodeInfo info, boolean draining) {}
