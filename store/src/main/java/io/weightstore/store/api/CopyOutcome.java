package io.weightstore.store.api;

/** How a copy that a node was asked to make ended. */
public sealed interface CopyOutcome {
    /** The copy is in the node's pool and every block of it checked. */
    record Done() implements CopyOutcome {}

    /**
     * The copy could not be made; {@code sourceBad} when the source's bytes did not match their
     * checksums, so that copy is bad too.
     */
    record Failed(String why, boolean sourceBad) implements CopyOutcome {}
}
