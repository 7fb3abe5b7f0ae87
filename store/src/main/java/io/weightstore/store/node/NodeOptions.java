package io.weightstore.store.node;

import java.nio.file.Path;

/**
 * How a storage node runs.
 *
 * @param capacity pool size when the pool file is created; an existing pool keeps its own
 * @param port data-plane port, 0 for an ephemeral one
 * @param advertisedHost the host name clients use to reach this node
 * @param token shared secret clients must present in the handshake, or empty
 */
public record NodeOptions(Path pool, long capacity, String bindHost, int port, String advertisedHost, String token) {
    public NodeOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: port=" + port);
        }
        token = token == null ? "" : token;
    }

    /** A node on loopback with an ephemeral port, as tests and benchmarks run them. */
    public static NodeOptions loopback(Path pool, long capacity) {
        return new NodeOptions(pool, capacity, "127.0.0.1", 0, "127.0.0.1", "");
    }

    public NodeOptions withPort(int value) {
        return new NodeOptions(pool, capacity, bindHost, value, advertisedHost, token);
    }

    public NodeOptions withToken(String value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, value);
    }
}
