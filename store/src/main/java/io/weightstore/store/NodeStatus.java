package io.weightstore.store;

import io.weightstore.store.proto.NodeInfo;

/** A storage node as the master sees it. Port 0 is the embedded store's in-process pool. */
public record NodeStatus(String nodeId, String host, int port, String poolPath, long capacity, long used, boolean up,
        long lastHeartbeatMs) {
    static NodeStatus of(NodeInfo node) {
        return new NodeStatus(node.getNodeId(), node.getHost(), node.getPort(), node.getPoolPath(), node.getCapacity(),
                node.getUsed(), node.getUp(), node.getLastHeartbeatMs());
    }

    public String endpoint() {
        return port == 0 ? "in-process" : host + ":" + port;
    }
}
