package io.weightstore.jlama.serve;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import java.util.Set;

/**
 * With an API key set, every request but health, readiness and metrics must carry it, or gets a
 * 401. The open paths are listed rather than the closed ones, so that no spelling of a
 * {@code /v1/} path ({@code //v1/models}, say) can slip past.
 */
final class BearerAuth implements Filter {
    static final Set<String> OPEN = Set.of("/health", "/ready", "/metrics");

    private final ApiKey key;
    private final ClientDeadline deadline;

    BearerAuth(ApiKey key, ClientDeadline deadline) {
        this.key = key;
        this.deadline = deadline;
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest request, RoutingResponse response) {
        if (OPEN.contains(request.path().rawPath()) || key.admits(request.headers().first(HeaderNames.AUTHORIZATION).orElse(null))) {
            chain.proceed();
            return;
        }
        try {
            Exchange.send(deadline, response, ApiError.unauthorized("missing or wrong API key: send it as 'Authorization: Bearer KEY'"));
        } catch (ClientGone gone) {
            // Outside the handlers' guard: noted on the access log line like theirs, rather than left to Helidon's warning.
            request.context().register(gone);
        }
    }
}
