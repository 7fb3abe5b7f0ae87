package io.weightstore.store.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.weightstore.store.logging.RateLimitedLog;
import io.weightstore.store.security.Credentials;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Permission;
import io.weightstore.store.security.TokenRegistry;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.LoggerFactory;

/**
 * Admits a call only from a known caller whose role allows the method: the caller is named by the
 * client certificate of the TLS session, or else by a bearer token of the master's registry. The
 * caller goes on in the call's context, for checks that need the request (a node may only speak for
 * itself; removing with force needs more than removing).
 */
final class CallerAuthorization implements ServerInterceptor {
    static final Context.Key<Identity> CALLER = Context.key("weightstore-caller");
    /** Whether {@link #CALLER} proved itself with a certificate rather than a token: its session tickets are bound to it. */
    static final Context.Key<Boolean> CERTIFIED = Context.keyWithDefault("weightstore-caller-certified", false);
    private static final String BEARER = "Bearer ";
    private static final RateLimitedLog REFUSALS =
            new RateLimitedLog(LoggerFactory.getLogger(CallerAuthorization.class), 10, Duration.ofMinutes(1));

    private final TokenRegistry tokens;

    CallerAuthorization(TokenRegistry tokens) {
        this.tokens = tokens;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        Optional<Identity> certified;
        try {
            certified = certificateOf(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
        } catch (SSLPeerUnverifiedException e) {
            return refuse(call, Status.UNAUTHENTICATED, "the client certificate of this connection may not call " + method + ": "
                    + e.getMessage());
        }
        Optional<Identity> caller = certified.or(() -> tokenOf(headers.get(GrpcStatuses.AUTHORIZATION)));
        if (caller.isEmpty()) {
            return refuse(call, Status.UNAUTHENTICATED, headers.containsKey(GrpcStatuses.AUTHORIZATION)
                    ? "this master does not know the bearer token presented to call " + method + " (it reads its --tokens file when it"
                            + " starts: a token issued or replaced since works once the master is restarted)"
                    : "present a client certificate of this cluster or a bearer token to call " + method);
        }
        Optional<Permission> needed = MethodPermissions.of(method);
        if (needed.isEmpty() || !caller.get().role().allows(needed.get())) {
            return refuse(call, Status.PERMISSION_DENIED, caller.get().name() + " (" + caller.get().role().label() + ") may not "
                    + needed.map(p -> p.name() + " (" + method + ")").orElse("call " + method));
        }
        return Contexts.interceptCall(Context.current().withValues(CALLER, caller.get(), CERTIFIED, certified.isPresent()), call,
                headers, next);
    }

    /** The identity the connection's client certificate names, checked as of now; none when the client presented none. */
    private static Optional<Identity> certificateOf(SSLSession session) throws SSLPeerUnverifiedException {
        if (session == null) {
            return Optional.empty();
        }
        try {
            session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            // A token client speaks TLS without a certificate of its own.
            return Optional.empty();
        }
        return Optional.of(Credentials.peerIdentity(session));
    }

    private Optional<Identity> tokenOf(String authorization) {
        if (authorization == null || !authorization.startsWith(BEARER)) {
            return Optional.empty();
        }
        return tokens.identify(authorization.substring(BEARER.length()));
    }

    private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status, String why) {
        REFUSALS.warn("refused {}: {}", call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR), why);
        call.close(status.withDescription(why), GrpcStatuses.answered());
        return new ServerCall.Listener<>() {};
    }
}
