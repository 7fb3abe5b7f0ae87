package io.weightstore.gateway;

import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives each request its id, counts it in the metrics, and logs one line for it: method, path,
 * status, duration, request id, and a note when there is one. Never the query or the headers: a presigned URL's signature and
 * credential travel in the query, and a signature in a header.
 */
final class AccessLog implements Filter {
    static final String REQUEST_ID_HEADER = "x-amz-request-id";
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);

    private final GatewayMetrics metrics;

    AccessLog(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        RequestId id = RequestId.next();
        request.context().register(id);
        response.header(REQUEST_ID_HEADER, id.value());
        long start = System.nanoTime();
        try {
            chain.proceed();
        } finally {
            metrics.answered(request.prologue().method().text(), response.status().code(), System.nanoTime() - start);
            // Formatted only when logged: the bench and embedders leave the access log off, and a GET of a small range is cheap.
            if (log.isInfoEnabled()) {
                String note = request.context().get(AccessNote.class).map(n -> " (" + n.text() + ")").orElse("");
                log.info(String.format(Locale.ROOT, "%s %s %d %.1f ms id=%s%s", request.prologue().method().text(),
                        request.path().rawPath(), response.status().code(), (System.nanoTime() - start) / 1e6, id.value(), note));
            }
        }
    }
}
