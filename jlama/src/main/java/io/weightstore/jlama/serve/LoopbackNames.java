package io.weightstore.jlama.serve;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * A server without a key on loopback trusts whoever can reach the port, which a web page in the
 * user's browser can too: by a name of its own that it rebinds to 127.0.0.1 (the request then names
 * that host), or by a plain cross-site POST, which needs no preflight (the request then carries the
 * page's {@code Origin}). So such a server answers only requests whose {@code Host}, and
 * {@code Origin} when there is one, is a loopback name or address; anything else is a 403.
 */
final class LoopbackNames implements Filter {
    private final ClientDeadline deadline;

    LoopbackNames(ClientDeadline deadline) {
        this.deadline = deadline;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        Optional<String> host = request.headers().first(HeaderNames.HOST);
        Optional<String> origin = request.headers().first(HeaderNames.ORIGIN);
        String refused = host.isEmpty() || !isLoopback(hostOf(host.get())) ? "Host " + host.orElse("(none)")
                : origin.isPresent() && !isLoopback(originHost(origin.get())) ? "Origin " + origin.get() : null;
        if (refused == null) {
            chain.proceed();
            return;
        }
        try {
            Exchange.send(deadline, response, ApiError.forbidden("this server has no API key and answers only requests for a"
                    + " loopback name (localhost, 127.0.0.1, [::1]); this one named " + refused + ". Set --api-key to serve"
                    + " other names"));
        } catch (ClientGone gone) {
            request.context().register(gone);
        }
    }

    /** The name in a Host header, without its port: {@code [::1]:8000} is {@code ::1}. */
    static String hostOf(String header) {
        String value = header.strip();
        if (value.startsWith("[")) {
            int end = value.indexOf(']');
            return end < 0 ? value : value.substring(1, end);
        }
        int colon = value.lastIndexOf(':');
        return colon < 0 ? value : value.substring(0, colon);
    }

    private static String originHost(String origin) {
        try {
            String host = URI.create(origin.strip()).getHost();
            return host == null ? "" : host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        } catch (IllegalArgumentException notAUri) {
            return "";
        }
    }

    /** Names that resolve to this machine by definition (RFC 6761), and the loopback addresses; no lookup is made. */
    static boolean isLoopback(String host) {
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.equals("localhost") || name.endsWith(".localhost") || name.equals("::1") || name.matches("127(\\.\\d{1,3}){3}");
    }
}
