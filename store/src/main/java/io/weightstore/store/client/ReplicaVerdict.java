package io.weightstore.store.client;

import io.weightstore.store.api.ReplicaRef;

/** How one copy of one slice of an object stands, from {@link ObjectReader#checkReplicas()} or {@link ObjectReader#replicaPresence()}. */
public record ReplicaVerdict(int slice, ReplicaRef replica, State state, String detail) {
    /** What was found. */
    public enum State {
        /** Every checksum block of the copy matched, checked on its node. */
        OK,
        /** On a node that is up; its bytes were not checked (the master's view alone). */
        PRESENT,
        /** A checksum block of the copy does not match. */
        CORRUPT,
        /** On a node that is down, unknown to the master, or did not answer: the copy cannot be read. */
        MISSING;

        /** Whether the copy can serve reads, as far as this check knows. */
        public boolean usable() {
            return this == OK || this == PRESENT;
        }
    }

    public String nodeId() {
        return replica.nodeId();
    }
}
