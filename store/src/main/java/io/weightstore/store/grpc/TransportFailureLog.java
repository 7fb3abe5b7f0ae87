package io.weightstore.store.grpc;

import io.weightstore.store.logging.RateLimitedLog;
import java.time.Duration;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC's Netty transport reports every connection that does not speak HTTP/2 (a port scan, a
 * browser, garbage) through java.util.logging, with a full stack trace: about 2.7 KB a connection.
 * Here it becomes one rate-limited WARN line that says what the peer sent wrong.
 */
final class TransportFailureLog extends Handler {
    private static final String TRANSPORT_LOGGER = "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport";
    /** Held here: java.util.logging keeps loggers only weakly, and a collected one would lose this handler. */
    private static final Logger TRANSPORT = Logger.getLogger(TRANSPORT_LOGGER);
    private static final RateLimitedLog WARNINGS =
            new RateLimitedLog(LoggerFactory.getLogger(MasterEndpoint.class), 10, Duration.ofMinutes(1));

    private TransportFailureLog() {}

    /** Once per process: every endpoint shares the transport's logger. */
    static synchronized void install() {
        for (Handler handler : TRANSPORT.getHandlers()) {
            if (handler instanceof TransportFailureLog) {
                return;
            }
        }
        TRANSPORT.setUseParentHandlers(false);
        TRANSPORT.addHandler(new TransportFailureLog());
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() < Level.INFO.intValue()) {
            return;
        }
        Throwable cause = record.getThrown();
        String why = cause == null || cause.getMessage() == null ? String.valueOf(record.getMessage()) : cause.getMessage();
        WARNINGS.warn("gRPC connection failed: {}", why.lines().findFirst().orElse(why));
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
}
