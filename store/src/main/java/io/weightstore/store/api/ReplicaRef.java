package io.weightstore.store.api;

/** One copy of a slice: the node that holds it, at {@code offset} in that node's pool data region. */
public record ReplicaRef(String nodeId, long offset) {}
