package io.weightstore.store.api;

/**
 * What a node has done since it started, as it reports with each heartbeat: bytes it served to
 * readers, connections open now, bytes its scrubber checked and bytes it copied from other nodes.
 */
public record NodeLoad(long bytesServed, int connections, long bytesScrubbed, long bytesCopied) {
    public static NodeLoad none() {
        return new NodeLoad(0, 0, 0, 0);
    }
}
