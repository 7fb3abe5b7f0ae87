package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weightstore.store.api.StoreException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/** The one mapping between store error codes and gRPC statuses, used by both ends of the master RPC. */
final class GrpcStatuses {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    /** On a refusal by a master of a group that does not lead: the leader's HOST:PORT, or {@link #NO_LEADER}. */
    static final Metadata.Key<String> LEADER = Metadata.Key.of("leader", Metadata.ASCII_STRING_MARSHALLER);
    static final String NO_LEADER = "none";
    /**
     * On every error a master sends itself: it answered, so a failure to reach it (TLS on one end only,
     * say) is not the cause. gRPC gives a status the transport made up no such trailer.
     */
    private static final Metadata.Key<String> ANSWERED = Metadata.Key.of("weightstore-answered", Metadata.ASCII_STRING_MARSHALLER);
    /**
     * On a failure because the leader stepped down during the call ({@link LeaderGate#steppedDown}): the
     * master answered, but not as the leader, so a client of the group looks for the new one.
     */
    private static final Metadata.Key<String> STEPPED_DOWN = Metadata.Key.of("weightstore-stepped-down", Metadata.ASCII_STRING_MARSHALLER);

    private GrpcStatuses() {}

    /** Trailers for an error this master sends. */
    static Metadata answered() {
        Metadata trailers = new Metadata();
        trailers.put(ANSWERED, "master");
        return trailers;
    }

    private static boolean answered(StatusRuntimeException e) {
        return e.getTrailers() != null && e.getTrailers().containsKey(ANSWERED);
    }

    /** Whether a master sent this error itself (a refusal, say), rather than the call never reaching one. */
    static boolean answered(StoreException e) {
        return e.getCause() instanceof StatusRuntimeException status && answered(status);
    }

    /**
     * Whether a failed call was answered by the leader itself, as a single master would answer it (not
     * enough nodes up, say): another master cannot answer otherwise, so the call is not worth moving.
     * A follower's refusal names the leader, and a leader that stepped down during the call says so.
     */
    static boolean answeredAsLeader(StoreException e) {
        Metadata trailers = e.getCause() instanceof StatusRuntimeException status ? status.getTrailers() : null;
        return trailers != null && trailers.containsKey(ANSWERED) && !trailers.containsKey(LEADER) && !trailers.containsKey(STEPPED_DOWN);
    }

    static StatusRuntimeException toStatus(StoreException e) {
        Status.Code code = switch (e.code()) {
            case INVALID_ARGUMENT -> Status.Code.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.Code.NOT_FOUND;
            case ALREADY_EXISTS -> Status.Code.ALREADY_EXISTS;
            case FAILED_PRECONDITION -> Status.Code.FAILED_PRECONDITION;
            case NO_SPACE -> Status.Code.RESOURCE_EXHAUSTED;
            case UNAVAILABLE -> Status.Code.UNAVAILABLE;
            case CORRUPT -> Status.Code.DATA_LOSS;
            case UNAUTHENTICATED -> Status.Code.UNAUTHENTICATED;
            case PERMISSION_DENIED -> Status.Code.PERMISSION_DENIED;
            case HELD, PROTOCOL, IO -> Status.Code.INTERNAL;
        };
        Metadata trailers = answered();
        if (LeaderGate.isSteppedDown(e)) {
            trailers.put(STEPPED_DOWN, "true");
        }
        return Status.fromCode(code).withDescription(e.getMessage()).asRuntimeException(trailers);
    }

    private static boolean closedUnderTheCall(StatusRuntimeException e) {
        return e.getStatus().getCause() instanceof ClosedChannelException || "channel closed".equals(e.getStatus().getDescription());
    }

    /**
     * The store error for a failed call; {@code plaintext} says whether this client spoke without TLS,
     * so a mismatch with the server's mode gets a message that says what to change.
     */
    static StoreException toStoreException(StatusRuntimeException e, String what, boolean plaintext) {
        StoreException.Code code = switch (e.getStatus().getCode()) {
            case INVALID_ARGUMENT, OUT_OF_RANGE -> StoreException.Code.INVALID_ARGUMENT;
            case NOT_FOUND -> StoreException.Code.NOT_FOUND;
            case ALREADY_EXISTS -> StoreException.Code.ALREADY_EXISTS;
            case FAILED_PRECONDITION, ABORTED -> StoreException.Code.FAILED_PRECONDITION;
            case RESOURCE_EXHAUSTED -> StoreException.Code.NO_SPACE;
            case DATA_LOSS -> StoreException.Code.CORRUPT;
            case UNAUTHENTICATED -> StoreException.Code.UNAUTHENTICATED;
            case PERMISSION_DENIED -> StoreException.Code.PERMISSION_DENIED;
            case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> StoreException.Code.UNAVAILABLE;
            // gRPC reports a connection that closed under a call (its master killed) as UNKNOWN, not UNAVAILABLE.
            case UNKNOWN -> closedUnderTheCall(e) ? StoreException.Code.UNAVAILABLE : StoreException.Code.IO;
            default -> StoreException.Code.IO;
        };
        String description = e.getStatus().getDescription();
        // A master that answered UNAVAILABLE itself (too few nodes up, not the leader) is up: its own words say why.
        boolean unreached = e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
                || e.getStatus().getCode() == Status.Code.UNAVAILABLE && !(answered(e) && description != null);
        String message = unreached
                ? what + ": master unavailable: " + withTransportHint(e, plaintext)
                : e.getStatus().getCode() == Status.Code.UNKNOWN && closedUnderTheCall(e)
                        ? what + ": the connection to the master closed during the call"
                        : answered(e) ? (description == null ? what + ": " + e.getStatus().getCode() : description)
                                : what + ": " + unanswered(e);
        return new StoreException(code, message, e);
    }

    /**
     * An error no master sent: gRPC's own words ("http2 exception") name neither the address nor the
     * likely cause, which is most often a port that another server listens on.
     */
    private static String unanswered(StatusRuntimeException e) {
        return switch (e.getStatus().getCode()) {
            case INTERNAL, UNKNOWN -> "no weightstore master answered there (" + unreachable(e) + "); is that the master's port,"
                    + " not a node's, the gateway's or another server's?";
            default -> e.getStatus().getDescription() == null ? e.getStatus().getCode().toString() : e.getStatus().getDescription();
        };
    }

    /**
     * Why the master could not be reached, with what a person can do when the transport refused
     * rather than the network: most often TLS on one end only, or certificates.
     */
    private static String withTransportHint(StatusRuntimeException e, boolean plaintext) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                String message = String.valueOf(tls.getMessage());
                return message.contains("not an SSL/TLS record")
                        ? "the master does not speak TLS; it runs with --insecure, so connect without --credentials"
                        : "TLS: " + deepestMessage(tls);
            }
        }
        if (plaintext && e.getStatus().getCode() == Status.Code.UNAVAILABLE && !answered(e) && connected(e)) {
            return unreachable(e) + "; a master that runs with TLS closes plaintext connections: give --credentials DIR"
                    + " (or $WEIGHTSTORE_CREDENTIALS)";
        }
        return unreachable(e);
    }

    /**
     * The innermost message under a TLS failure: the engine's own ("General OpenSslEngine problem") only
     * wraps the certificate check's, which names the certificate and why it was refused.
     */
    private static String deepestMessage(SSLException tls) {
        String message = String.valueOf(tls.getMessage());
        for (Throwable cause = tls.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
                message = cause.getMessage();
            }
        }
        return message;
    }

    /** Whether the connection was made before it failed: it was not refused, unresolved, unroutable or timed out. */
    private static boolean connected(StatusRuntimeException e) {
        return switch (rootCause(e)) {
            case UnknownHostException _, NoRouteToHostException _, ConnectException _, SocketTimeoutException _ -> false;
            default -> true;
        };
    }

    private static Throwable rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * Why the master could not be reached, from the deepest cause gRPC kept: its status only says
     * "io exception", while the socket error says what an operator can act on.
     */
    private static String unreachable(StatusRuntimeException e) {
        Throwable root = rootCause(e);
        String text = root.getMessage() == null ? "" : root.getMessage();
        return switch (root) {
            case UnknownHostException _ -> "cannot resolve its host name (" + text + ")";
            case NoRouteToHostException _ -> "no route to its host";
            case ConnectException _ when text.toLowerCase(Locale.ROOT).contains("refused") ->
                    "connection refused (is the master running and listening on that port?)";
            case SocketTimeoutException _ -> "connecting timed out";
            default -> e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED ? "no answer before the deadline"
                    : e.getStatus().getCode() + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription())
                            + (root == e || text.isEmpty() ? "" : " (" + text + ")");
        };
    }
}
