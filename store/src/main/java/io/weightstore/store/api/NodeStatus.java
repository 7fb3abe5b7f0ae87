package io.weightstore.store.api;

import java.time.Instant;

/**
 * A storage node as the master sees it now: registration, bytes allocated, whether it is up, what
 * it last reported of its load, and whether it is being drained.
 */
public record NodeStatus(NodeInfo info, long used, boolean up, Instant lastHeartbeat, NodeLoad load, boolean draining) {
    public String nodeId() {
        return info.nodeId();
    }

    public Endpoint endpoint() {
        return info.endpoint();
    }

    public long capacity() {
        return info.capacity();
    }
}
