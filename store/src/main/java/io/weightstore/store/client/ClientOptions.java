package io.weightstore.store.client;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.security.Authentication;
import java.time.Duration;

/**
 * How a client reaches the nodes.
 *
 * @param connections parallel transfers (threads and data-plane connections) per client
 * @param sameHostPath map a node's pool file when it is visible on this host, instead of using its socket
 * @param authentication how this client proves who it is to the master (and, through its tickets, to the nodes)
 * @param maxPieceBytes largest unit of parallel work; a large range is cut into pieces this size
 * @param leaseDuration how long each read lease lasts; open readers renew theirs at half that
 * @param deadlines how long a node may take to connect and to move a piece's bytes before the read moves to another replica
 * @param congestionControl the TCP congestion control this client sends to nodes under (the bytes of a put); one the
 *     kernel refuses leaves the host's default
 */
public record ClientOptions(int connections, boolean sameHostPath, Authentication authentication, long maxPieceBytes, Duration leaseDuration,
        TransferDeadlines deadlines, CongestionControl congestionControl) {
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
        if (congestionControl == null) {
            throw new IllegalArgumentException("congestionControl=null: use CongestionControl.HOST_DEFAULT for the host's");
        }
        if (authentication == null) {
            throw new IllegalArgumentException("authentication=null: use Authentication.insecure() for an insecure cluster");
        }
    }

    public static ClientOptions defaults() {
        return new ClientOptions(4, true, Authentication.insecure(), 16L << 20,
                Duration.ofSeconds(30), TransferDeadlines.defaults(), CongestionControl.CUBIC);
    }

    public ClientOptions withConnections(int n) {
        return new ClientOptions(n, sameHostPath, authentication, maxPieceBytes, leaseDuration, deadlines, congestionControl);
    }

    public ClientOptions withSameHostPath(boolean enabled) {
        return new ClientOptions(connections, enabled, authentication, maxPieceBytes, leaseDuration, deadlines, congestionControl);
    }

    public ClientOptions withMaxPieceBytes(long bytes) {
        return new ClientOptions(connections, sameHostPath, authentication, bytes, leaseDuration, deadlines, congestionControl);
    }

    public ClientOptions withLeaseDuration(Duration duration) {
        return new ClientOptions(connections, sameHostPath, authentication, maxPieceBytes, duration, deadlines, congestionControl);
    }

    public ClientOptions withDeadlines(TransferDeadlines value) {
        return new ClientOptions(connections, sameHostPath, authentication, maxPieceBytes, leaseDuration, value, congestionControl);
    }

    public ClientOptions withAuthentication(Authentication value) {
        return new ClientOptions(connections, sameHostPath, value, maxPieceBytes, leaseDuration, deadlines, congestionControl);
    }

    public ClientOptions withCongestionControl(CongestionControl value) {
        return new ClientOptions(connections, sameHostPath, authentication, maxPieceBytes, leaseDuration, deadlines, value);
    }
}
