package io.weightstore.store.api;

/** A copy a node is making, and how many of its bytes are in the node's pool so far. */
public record CopyProgress(String taskId, long bytesDone) {}
