package io.weightstore.store.api;

/**
 * A copy of one slice under way: from which node to which, why, and how far it got. A copy made by
 * a client ({@code verify --repair}) reports no progress.
 */
public record CopyInFlight(String key, int slice, String from, String to, Reason reason, long length, long bytesDone) {
    /** Why the copy is made. */
    public enum Reason {
        /** A copy was lost: its node stayed down past the repair delay, or came back without its pool. */
        LOST,
        /** A copy's bytes were bad: it is rewritten in place. */
        BAD,
        /** The object's replica count was raised, or readers crowd it (auto). */
        REPLICATE,
        /** The copy's node is being drained. */
        DRAIN,
        /** A node keeps a copy for the engines on its host. */
        LOCAL,
        /** A client repairs it ({@code model verify --repair}). */
        CLIENT
    }
}
