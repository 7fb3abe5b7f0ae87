package io.weightstore.jlama.serve;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;

/**
 * How {@code serve} listens and admits work.
 *
 * @param maxConcurrent generations in progress at once; their passes through the model take turns
 * @param maxQueue requests that may wait, first come first served, for a generation slot; one more
 *     gets a 429
 * @param apiKey when present, every {@code /v1/} request must carry it as a bearer token
 * @param clientTimeout the longest a client may take to send its whole request body, or to take a
 *     part of the answer (an event of a stream, a whole short answer), the longest a connection
 *     may wait for its next request line, and the longest the headers after one may take; past it
 *     its connection is closed, and a generation streaming to it stops
 * @param maxConnections client connections open at once; more wait in the kernel's backlog until one
 *     closes. Every phase of a connection is bounded by {@code clientTimeout}, so none holds a place
 *     for good
 */
public record ServeConfig(String host, int port, int maxConcurrent, int maxQueue, Optional<ApiKey> apiKey, Duration clientTimeout,
        int maxConnections) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_MAX_CONCURRENT = 1;
    public static final int DEFAULT_MAX_QUEUE = 16;
    public static final int CLIENT_TIMEOUT_SECONDS = 60;
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    private static final Duration MIN_CLIENT_TIMEOUT = Duration.ofMillis(100);
    private static final Duration MAX_CLIENT_TIMEOUT = Duration.ofDays(1);

    public ServeConfig {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("--bind needs a host name or address, found '" + host + "'");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port must be in 0..65535, found " + port);
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("--max-concurrent must be >= 1, found " + maxConcurrent);
        }
        if (maxQueue < 0) {
            throw new IllegalArgumentException("--max-queue must be >= 0, found " + maxQueue);
        }
        if (clientTimeout.compareTo(MIN_CLIENT_TIMEOUT) < 0 || clientTimeout.compareTo(MAX_CLIENT_TIMEOUT) > 0) {
            throw new IllegalArgumentException("--client-timeout must be from " + MIN_CLIENT_TIMEOUT.toMillis() + " ms to "
                    + MAX_CLIENT_TIMEOUT.toHours() + " h, found " + clientTimeout);
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("--max-connections must be >= 1, found " + maxConnections);
        }
    }

    /** With the default cap on connections. */
    public ServeConfig(String host, int port, int maxConcurrent, int maxQueue, Optional<ApiKey> apiKey, Duration clientTimeout) {
        this(host, port, maxConcurrent, maxQueue, apiKey, clientTimeout, DEFAULT_MAX_CONNECTIONS);
    }

    /** With the default client timeout and cap on connections. */
    public ServeConfig(String host, int port, int maxConcurrent, int maxQueue, Optional<ApiKey> apiKey) {
        this(host, port, maxConcurrent, maxQueue, apiKey, Duration.ofSeconds(CLIENT_TIMEOUT_SECONDS));
    }

    /**
     * Whether the server listens on loopback only. Without a key that is the one place it may serve
     * unless the operator says {@code --insecure}, and there it answers only requests for loopback names.
     */
    public boolean listensOnLoopback() {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
