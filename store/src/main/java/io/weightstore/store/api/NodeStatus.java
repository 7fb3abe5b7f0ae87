package io.weightstore.store.api;

import java.time.Instant;

/** A storage node as the master sees it now: registration, bytes allocated, and whether it is up. */
public record NodeStatus(NodeInfo info, long used, boolean up, Instant lastHeartbeat) {
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
