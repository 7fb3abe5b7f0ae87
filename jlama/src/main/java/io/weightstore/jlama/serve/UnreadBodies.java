package io.weightstore.jlama.serve;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerResponse;

/**
 * After an answer, Helidon reads whatever of the request's body no handler read, to keep the
 * connection, and with no deadline: a client that sends {@code Content-Length: 1000000000} to
 * {@code /health} and then a byte now and then would hold its connection for good. A request with a
 * body is answered with {@code Connection: close}, unless its handler read the body whole within the
 * client deadline ({@link #keepAlive}), and then the connection is closed. Helidon takes the header
 * as leave to skip the rest of the body but would go on reading the connection, taking the body's
 * bytes for the next request (a request inside a refused body would be served): closing is ours.
 */
final class UnreadBodies implements Filter {
    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        boolean body = request.content().hasEntity();
        if (body) {
            response.header(HeaderValues.CONNECTION_CLOSE);
        }
        chain.proceed();
        if (body && response.headers().contains(HeaderValues.CONNECTION_CLOSE) && !request.content().consumed()) {
            throw new CloseConnectionException("the request's body was not read; its connection ends with the answer");
        }
    }

    /** The body was read whole: the connection may serve the next request. */
    static void keepAlive(ServerResponse response) {
        response.headers().remove(HeaderNames.CONNECTION);
    }
}
