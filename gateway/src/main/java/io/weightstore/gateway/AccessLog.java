package io.weightstore.gateway;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts each answered request in the metrics and logs one line for it: method, path, status,
 * duration, request id, and a note when there is one. Never the query or the headers: a presigned
 * URL's signature and credential travel in the query, and a signature in a header.
 */
final class AccessLog {
    static final String REQUEST_ID_HEADER = "x-amz-request-id";
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);

    private final GatewayMetrics metrics;

    AccessLog(GatewayMetrics metrics) {
        this.metrics = metrics;
    }

    /** Records {@code exchange}, whose response has been written (or has failed to be). */
    void answered(Exchange exchange) {
        long nanos = System.nanoTime() - exchange.arrivedNanos();
        metrics.answered(exchange.method(), exchange.status(), nanos);
        // Formatted only when logged: the bench and embedders leave the access log off, and a GET of a small range is cheap.
        if (log.isInfoEnabled()) {
            String note = exchange.note().map(n -> " (" + n + ")").orElse("");
            log.info(String.format(Locale.ROOT, "%s %s %d %.1f ms id=%s%s", exchange.method(), exchange.rawPath(), exchange.status(),
                    nanos / 1e6, exchange.id().value(), note));
        }
    }
}
