package io.weightstore.weights;

/** The life of a checkpoint in the store; loaders accept only READY. */
public enum CheckpointStatus {
    IMPORTING,
    READY,
    FAILED,
    DELETING
}
