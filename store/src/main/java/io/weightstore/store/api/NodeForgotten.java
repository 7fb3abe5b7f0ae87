package io.weightstore.store.api;

/**
 * What {@link MasterApi#forgetNode} dropped with a node: the replicas it held, in how many
 * objects, and the puts in progress that had placed a replica on it.
 */
public record NodeForgotten(String nodeId, int objects, int replicas, int putsAborted) {}
