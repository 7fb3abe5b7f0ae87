package io.weightstore.store.api;

import java.time.Instant;
import java.util.Map;

/**
 * Space reserved for a put: where each slice's replicas go, on which nodes, until when, and for which
 * writer. The object stays invisible to readers until {@link MasterApi#putEnd} seals it.
 */
public record PutGrant(String putId, ObjectMeta object, Map<String, NodeInfo> nodes, Instant deadline, String writer) {
    public PutGrant {
        nodes = Map.copyOf(nodes);
    }
}
