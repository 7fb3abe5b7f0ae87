package io.weightstore.jlama.serve;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerResponse;

/**
 * After an answer, Helidon reads whatever of the request's body no handler read, to keep the
 * connection, and with no deadline: a client that sends {@code Content-Length: 1000000000} to
 * {@code /health} and then a byte now and then would hold its connection for good. A request with a
 * body is answered with {@code Connection: close}, which Helidon takes as leave to skip the rest,
 * unless its handler read the body whole within the client deadline ({@link #keepAlive}).
 */
final class UnreadBodies implements Filter {
    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        if (request.content().hasEntity()) {
            response.header(HeaderValues.CONNECTION_CLOSE);
        }
        chain.proceed();
    }

    /** The body was read whole: the connection may serve the next request. */
    static void keepAlive(ServerResponse response) {
        response.headers().remove(HeaderNames.CONNECTION);
    }
}
