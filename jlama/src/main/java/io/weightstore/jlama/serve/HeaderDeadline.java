package io.weightstore.jlama.serve;

import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the time from a request line to the end of its headers by the client deadline. Helidon's
 * idle timeout counts from the last request, so it closes a connection whose request line trickles;
 * once the line is in, it reads headers for as long as they trickle, and a few hundred such clients
 * would hold as many connections and threads for good. Helidon calls this listener on the
 * connection's own thread, before and after the headers, so the alarm interrupts the very read
 * that waits for them, which closes the socket (JEP 444). Headers Helidon refuses (too large, no
 * Host) end the connection and its thread, whose alarm then does nothing.
 */
final class HeaderDeadline implements Http1ConnectionListener {
    private static final Logger log = LoggerFactory.getLogger(AccessLog.class);

    private final ClientDeadline deadline;
    private final ThreadLocal<ClientDeadline.Armed> armed = new ThreadLocal<>();

    HeaderDeadline(ClientDeadline deadline) {
        this.deadline = deadline;
    }

    @Override
    public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
        disarm();
        armed.set(deadline.arm(() -> log.info("{} {} - (client sent its headers too slowly: not whole after {} ms; connection closed)",
                prologue.method().text(), prologue.uriPath().rawPath(), deadline.limit().toMillis())));
    }

    @Override
    public void headers(ConnectionContext ctx, Headers headers) {
        disarm();
    }

    private void disarm() {
        ClientDeadline.Armed current = armed.get();
        if (current != null) {
            armed.remove();
            current.disarm();
        }
    }
}
