package io.weightstore.store.client;

import io.weightstore.store.api.TransferDeadlines;
import java.time.Duration;

/**
 * How a client reaches the nodes.
 *
 * @param connections parallel transfers (threads and data-plane connections) per client
 * @param sameHostPath map a node's pool file when it is visible on this host, instead of using its socket
 * @param token shared secret for the master and the nodes, or empty
 * @param maxPieceBytes largest unit of parallel work; a large range is cut into pieces this size
 * @param leaseDuration how long each read lease lasts; open readers renew theirs at half that
 * @param deadlines how long a node may take to connect and to move a piece's bytes before the read moves to another replica
 */
public record ClientOptions(int connections, boolean sameHostPath, String token, long maxPieceBytes, Duration leaseDuration,
        TransferDeadlines deadlines) {
    public ClientOptions {
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be >= 1: connections=" + connections);
        }
        if (maxPieceBytes < 1) {
            throw new IllegalArgumentException("maxPieceBytes must be >= 1: maxPieceBytes=" + maxPieceBytes);
        }
        if (leaseDuration.toMillis() < 100) {
            throw new IllegalArgumentException("leaseDuration must be at least 100 ms: leaseDuration=" + leaseDuration);
        }
        token = token == null ? "" : token;
    }

    public static ClientOptions defaults() {
        return new ClientOptions(4, true, System.getenv().getOrDefault("WEIGHTSTORE_TOKEN", ""), 16L << 20,
                Duration.ofSeconds(30), TransferDeadlines.defaults());
    }

    public ClientOptions withConnections(int n) {
        return new ClientOptions(n, sameHostPath, token, maxPieceBytes, leaseDuration, deadlines);
    }

    public ClientOptions withSameHostPath(boolean enabled) {
        return new ClientOptions(connections, enabled, token, maxPieceBytes, leaseDuration, deadlines);
    }

    public ClientOptions withMaxPieceBytes(long bytes) {
        return new ClientOptions(connections, sameHostPath, token, bytes, leaseDuration, deadlines);
    }

    public ClientOptions withLeaseDuration(Duration duration) {
        return new ClientOptions(connections, sameHostPath, token, maxPieceBytes, duration, deadlines);
    }

    public ClientOptions withDeadlines(TransferDeadlines value) {
        return new ClientOptions(connections, sameHostPath, token, maxPieceBytes, leaseDuration, value);
    }

    public ClientOptions withToken(String value) {
        return new ClientOptions(connections, sameHostPath, value, maxPieceBytes, leaseDuration, deadlines);
    }
}
