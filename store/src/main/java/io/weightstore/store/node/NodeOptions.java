package io.weightstore.store.node;

import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.Role;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * How a storage node runs.
 *
 * @param capacity pool size when the pool file is created; an existing pool keeps its own
 * @param port data-plane port, 0 for an ephemeral one
 * @param advertisedHost the host name clients use to reach this node
 * @param authentication the node's credential (a node certificate of the cluster, which names the node), or insecure
 * @param deadlines how long a handshake, an idle connection and each transfer may take
 * @param maxConnections connections served at once; more are refused in the handshake
 * @param dataPlane on a secure node, what its data plane protects after the handshake
 * @param scrubBytesPerSecond how fast the scrubber re-checks the node's replicas against their checksums; 0 turns it off
 * @param checkTrust how long a checksum block the node found intact is served to partial and strided reads without being
 *     hashed again, unless written since (see {@link VerifiedBlocks}); zero hashes every block for every read
 * @param congestionControl the TCP congestion control the node's answers are sent under
 */
public record NodeOptions(Path pool, long capacity, String bindHost, int port, String advertisedHost, Authentication authentication,
        TransferDeadlines deadlines, int maxConnections, DataPlaneProtection dataPlane, long scrubBytesPerSecond,
        Duration checkTrust, CongestionControl congestionControl) {
    public static final int DEFAULT_MAX_CONNECTIONS = 256;
    /** 16 MB/s: a 16 GiB pool is checked in about 18 minutes, for a few per cent of one core. */
    public static final long DEFAULT_SCRUB_BYTES_PER_SECOND = 16_000_000;
    /**
     * 10 s: the ranks of a tensor-parallel load read each block within moments of each other, and a
     * block that rots in place is served unchecked by the node for at most this long after its last check.
     */
    public static final Duration DEFAULT_CHECK_TRUST = Duration.ofSeconds(10);

    public NodeOptions {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be in 0..65535: port=" + port);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be >= 1: maxConnections=" + maxConnections);
        }
        if (scrubBytesPerSecond < 0) {
            throw new IllegalArgumentException("scrubBytesPerSecond must be >= 0 (0 turns scrubbing off): scrubBytesPerSecond="
                    + scrubBytesPerSecond);
        }
        if (checkTrust == null || checkTrust.isNegative()) {
            throw new IllegalArgumentException("checkTrust must be >= 0 (0 checks every read): checkTrust=" + checkTrust);
        }
        if (congestionControl == null) {
            throw new IllegalArgumentException("congestionControl=null: use CongestionControl.HOST_DEFAULT for the host's");
        }
        if (authentication instanceof Authentication.BearerToken) {
            throw new IllegalArgumentException("a node needs a node certificate, not a token: its data plane speaks TLS as the node");
        }
        if (authentication instanceof Authentication.Certificate c && c.credentials().identity().role() != Role.NODE) {
            throw new IllegalArgumentException("a node needs a node credential, not " + c.credentials().identity());
        }
    }

    public NodeOptions(Path pool, long capacity, String bindHost, int port, String advertisedHost, Authentication authentication) {
        this(pool, capacity, bindHost, port, advertisedHost, authentication, TransferDeadlines.defaults(), DEFAULT_MAX_CONNECTIONS,
                DataPlaneProtection.TLS, DEFAULT_SCRUB_BYTES_PER_SECOND, DEFAULT_CHECK_TRUST, CongestionControl.CUBIC);
    }

    /** Whether the node runs with a credential: TLS to its master, and tickets checked on its data plane. */
    public boolean secure() {
        return !(authentication instanceof Authentication.Insecure);
    }

    /** The node id its credential names; an insecure node takes the one its pool file was created with. */
    public Optional<String> credentialNodeId() {
        return authentication instanceof Authentication.Certificate c ? Optional.of(c.credentials().identity().name())
                : Optional.empty();
    }

    /**
     * A node on loopback with an ephemeral port, as tests and benchmarks run them; without a scrubber,
     * which would rewrite the rot such tests plant before they look for it (those that test it turn it on).
     */
    public static NodeOptions loopback(Path pool, long capacity) {
        return new NodeOptions(pool, capacity, "127.0.0.1", 0, "127.0.0.1", Authentication.insecure()).withScrubBytesPerSecond(0);
    }

    public NodeOptions withPort(int value) {
        return new NodeOptions(pool, capacity, bindHost, value, advertisedHost, authentication, deadlines, maxConnections, dataPlane,
                scrubBytesPerSecond, checkTrust, congestionControl);
    }

    public NodeOptions withAuthentication(Authentication value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, value, deadlines, maxConnections, dataPlane,
                scrubBytesPerSecond, checkTrust, congestionControl);
    }

    public NodeOptions withDeadlines(TransferDeadlines value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, value, maxConnections, dataPlane,
                scrubBytesPerSecond, checkTrust, congestionControl);
    }

    public NodeOptions withDataPlane(DataPlaneProtection value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, deadlines, maxConnections, value,
                scrubBytesPerSecond, checkTrust, congestionControl);
    }

    public NodeOptions withMaxConnections(int value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, deadlines, value, dataPlane,
                scrubBytesPerSecond, checkTrust, congestionControl);
    }

    public NodeOptions withScrubBytesPerSecond(long value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, deadlines, maxConnections, dataPlane,
                value, checkTrust, congestionControl);
    }

    public NodeOptions withCheckTrust(Duration value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, deadlines, maxConnections, dataPlane,
                scrubBytesPerSecond, value, congestionControl);
    }

    public NodeOptions withCongestionControl(CongestionControl value) {
        return new NodeOptions(pool, capacity, bindHost, port, advertisedHost, authentication, deadlines, maxConnections, dataPlane,
                scrubBytesPerSecond, checkTrust, value);
    }
}
