package io.weightstore.jlama.serve;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per request (method, path, status, duration), and the request metrics. Only the path
 * is logged: never the query, the headers (the API key travels in one) or the body.
 */
final class AccessLog implements Filter {
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);

    private final ServeMetrics metrics;

    AccessLog(ServeMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        long start = System.nanoTime();
        try {
            chain.proceed();
        } finally {
            double seconds = (System.nanoTime() - start) / 1e9;
            int status = response.status().code();
            String path = request.path().rawPath();
            String gone = request.context().get(ClientGone.class).map(g -> " (" + g.note() + ")").orElse("");
            log.info(String.format(Locale.ROOT, "%s %s %d %.1f ms%s", request.prologue().method().text(), path, status, seconds * 1e3,
                    gone));
            metrics.request(route(path), status, seconds);
        }
    }

    /** The route a path belongs to: metrics get a label from a short fixed list, whatever clients ask for. */
    static String route(String path) {
        return switch (path) {
            case "/health", "/ready", "/metrics", "/v1/models", "/v1/completions", "/v1/chat/completions" -> path;
            default -> path.startsWith("/v1/models/") ? "/v1/models/{id}" : "other";
        };
    }
}
