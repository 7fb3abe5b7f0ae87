package io.weightstore.store;

/**
 * How a client reaches the nodes.
 *
 * @param connections parallel transfers (threads and data-plane connections) per client
 * @param sameHostPath map a node's pool file when it is visible on this host, instead of using its socket
 * @param token shared secret for the master and the nodes, or empty
 * @param maxPieceBytes largest unit of parallel work; a large range is cut into pieces this size
 */
public record ClientOptions(int connections, boolean sameHostPath, String token, long maxPieceBytes) {
    public ClientOptions {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1: connections=" + connections);
        }
        if (maxPieceBytes < 1) {
            throw new IllegalArgumentException("maxPieceBytes must be >= 1: maxPieceBytes=" + maxPieceBytes);
        }
        token = token == null ? "" : token;
    }

    public static ClientOptions defaults() {
        return new ClientOptions(4, true, System.getenv().getOrDefault("WEIGHTSTORE_TOKEN", ""), 16L << 20);
    }

    public ClientOptions withConnections(int n) {
        return new ClientOptions(n, sameHostPath, token, maxPieceBytes);
    }

    public ClientOptions withSameHostPath(boolean enabled) {
        return new ClientOptions(connections, enabled, token, maxPieceBytes);
    }

    public ClientOptions withToken(String value) {
        return new ClientOptions(connections, sameHostPath, value, maxPieceBytes);
    }
}
