package io.weightstore.gateway;

import io.weightstore.store.api.CongestionControl;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * How the gateway serves.
 *
 * @param host address to listen on; loopback by default, so nothing is exposed until asked for
 * @param port TCP port, 0 for any free one
 * @param bucket the one bucket's name; every READY checkpoint is in it
 * @param access who may read: the access keys, and whether unsigned requests are served
 * @param maxConcurrent object transfers and bucket listings in progress at once, each transfer holding two chunk buffers
 * @param maxWaiting transfers and listings that may wait for a slot before more are answered 503 SlowDown
 * @param chunkBytes bytes read from the store and written to the socket at a time, per buffer
 * @param idleTimeout how long a connection with no request in progress and no bytes moving is kept
 * @param requestHeadTimeout how long a request line and headers may take to arrive, from their first byte
 * @param sendTimeout how long a response may go without the client taking a byte of it before the connection is closed,
 *     and how long a transfer waits for a slot before it is answered 503 SlowDown
 * @param maxConnections client connections open at once; more wait in the kernel's backlog until one closes
 * @param congestionControl the TCP congestion control responses are sent under, as the store's nodes send theirs
 */
public record GatewayConfig(String host, int port, String bucket, Access access, int maxConcurrent, int maxWaiting, int chunkBytes,
        Duration idleTimeout, Duration requestHeadTimeout, Duration sendTimeout, int maxConnections, CongestionControl congestionControl) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final String DEFAULT_BUCKET = "weights";
    public static final int DEFAULT_MAX_CONCURRENT = 16;
    public static final int DEFAULT_MAX_WAITING = 64;
    /**
     * Measured with {@code bench gateway} on two cores, over the nodes' sockets: 8 MiB chunks were no
     * faster than 2 MiB ones (0.44-0.51 x nginx against 0.45-0.53 x), and hold four times the memory.
     */
    public static final int DEFAULT_CHUNK_BYTES = 2 << 20;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(2);
    /** Half nginx's default (client_header_timeout): a whole head is at most 32 KiB here, which a client sends in far less. */
    public static final Duration DEFAULT_REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(30);
    /** nginx's default (send_timeout): a stalled client holds a transfer slot and a read lease no longer than this. */
    public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(60);
    /** Each connection costs a socket and a few KiB; with the idle and head timeouts, this bounds what a crowd of clients can hold. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    public static final String ACCESS_KEY_ENV = "WEIGHTSTORE_GATEWAY_ACCESS_KEY";
    public static final String SECRET_KEY_ENV = "WEIGHTSTORE_GATEWAY_SECRET_KEY";

    /** S3's rules for bucket names that clients address both by path and by host name. */
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    public GatewayConfig {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be from 0 to 65535, found " + port);
        }
        if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException("bucket '" + bucket + "' must be 3 to 63 of a-z 0-9 . -, starting and ending with a"
                    + " letter or digit, as S3 bucket names are");
        }
        if (maxConcurrent < 1 || maxWaiting < 0) {
            throw new IllegalArgumentException("max concurrent transfers must be >= 1 and waiting ones >= 0, found " + maxConcurrent
                    + " and " + maxWaiting);
        }
        if (chunkBytes < 64 << 10 || chunkBytes > 256 << 20) {
            throw new IllegalArgumentException("chunk size must be from 64 KiB to 256 MiB, found " + chunkBytes + " bytes");
        }
        if (idleTimeout.toMillis() < 1 || requestHeadTimeout.toMillis() < 1 || sendTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("idle, request head and send timeouts must be at least 1 ms, found " + idleTimeout + ", "
                    + requestHeadTimeout + " and " + sendTimeout);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("max connections must be >= 1, found " + maxConnections);
        }
        if (congestionControl == null) {
            throw new IllegalArgumentException("congestionControl=null: use CongestionControl.HOST_DEFAULT for the host's");
        }
    }

    public GatewayConfig withMaxConnections(int value) {
        return new GatewayConfig(host, port, bucket, access, maxConcurrent, maxWaiting, chunkBytes, idleTimeout, requestHeadTimeout,
                sendTimeout, value, congestionControl);
    }

    public GatewayConfig withCongestionControl(CongestionControl value) {
        return new GatewayConfig(host, port, bucket, access, maxConcurrent, maxWaiting, chunkBytes, idleTimeout, requestHeadTimeout,
                sendTimeout, maxConnections, value);
    }

    /** The defaults, on {@code port}, for {@code access}. */
    public static GatewayConfig defaults(int port, Access access) {
        return new GatewayConfig(DEFAULT_HOST, port, DEFAULT_BUCKET, access, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_WAITING,
                DEFAULT_CHUNK_BYTES, DEFAULT_IDLE_TIMEOUT, DEFAULT_REQUEST_HEAD_TIMEOUT, DEFAULT_SEND_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
                CongestionControl.CUBIC);
    }
}
