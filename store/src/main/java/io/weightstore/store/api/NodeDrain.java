package io.weightstore.store.api;

/** A node being drained (or no longer), and how many replicas it still holds. */
public record NodeDrain(String nodeId, boolean draining, int replicasLeft) {}
