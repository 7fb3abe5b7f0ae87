package io.weightstore.jlama.serve;

import java.util.Optional;

/**
 * How {@code serve} listens and admits work.
 *
 * @param maxConcurrent generations in progress at once; their passes through the model take turns
 * @param maxQueue requests that may wait, first come first served, for a generation slot; one more
 *     gets a 429
 * @param apiKey when present, every {@code /v1/} request must carry it as a bearer token
 */
public record ServeConfig(String host, int port, int maxConcurrent, int maxQueue, Optional<ApiKey> apiKey) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_MAX_CONCURRENT = 1;
    public static final int DEFAULT_MAX_QUEUE = 16;

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
    }
}
