package io.weightstore.store.node;

import io.weightstore.store.api.TransferDeadlines;
import java.nio.file.Path;

/**
 * How a storage node runs.
 *
 * @param capacity pool size when the pool file is created; an existing pool keeps its own
 * @param port data-plane port, 0 for an ephemeral one
 * @param advertisedHost the host name clients use to reach this node
 * @param token shared secret clients must present in the handshake, or empty
 * @param deadlines how long a handshake, an idle connection and each transfer may take
 * @param maxConnections connections served at once; more are refused in the handshake
 */
public record NodeOptions(Path pool, long capacity, String bindHost, int port, String advertisedHost, String token,
        TransferDeadlines deadlines, int maxConnections) {
    public static final int DEFAULT_MAX_CONNECTIONS = 256;

    public NodeOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: port=" + port);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be >= 1: maxConnections=" + maxConnections);
        }
        token = token == null ? "" : token;
    }

    public NodeOptions(Path pool, long capacity, String bindHost, int port, String advertisedHost, String token) {
        this(pool, capacity, bindHost, port, advertisedHost, token, TransferDeadlines.defaults(), DEFAULT_MAX_CONNECTIONS);
    }

    /** A node on loopback with an ephemeral port, as tests and benchmarks run them. */
    public static NodeOptions loopback(Path pool, long capacity) {
        return new NodeOptions(pool, capacity, "127.0.0.1", 0, "127.0.0.1", "");
    }

    public NodeOptions withPort(int value) {
        return new NodeOptions(pool, capacity, bindHost, value, advertisedHost, token, deadlines, maxConnections);
    }

    public NodeOptions withToken(String value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, value, deadlines, maxConnections);
    }

    public NodeOptions withDeadlines(TransferDeadlines value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, token, value, maxConnections);
    }

    public NodeOptions withMaxConnections(int value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, token, deadlines, value);
    }
}
