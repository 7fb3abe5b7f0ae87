package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weightstore.store.api.StoreException;
import javax.net.ssl.SSLException;

/** The one mapping between store error codes and gRPC statuses, used by both ends of the master RPC. */
final class GrpcStatuses {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private GrpcStatuses() {}

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
        return Status.fromCode(code).withDescription(e.getMessage()).asRuntimeException();
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
            default -> StoreException.Code.IO;
        };
        String description = e.getStatus().getDescription();
        if (code == StoreException.Code.UNAVAILABLE) {
            description = withTransportHint(e, description, plaintext);
        }
        String message = e.getStatus().getCode() == Status.Code.UNAVAILABLE || e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
                ? what + ": master unavailable (" + e.getStatus().getCode() + (description == null ? "" : ": " + description) + ")"
                : description == null ? what + ": " + e.getStatus().getCode() : description;
        return new StoreException(code, message, e);
    }

    /** What a person can do when the transport, not the master, refused: most often TLS on one end only, or certificates. */
    private static String withTransportHint(StatusRuntimeException e, String description, boolean plaintext) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof SSLException tls) {
                String message = String.valueOf(tls.getMessage());
                return message.contains("not an SSL/TLS record")
                        ? "the master does not speak TLS; it runs with --insecure, so connect without --credentials"
                        : "TLS: " + message;
            }
        }
        if (plaintext && description != null && description.contains("Network closed")) {
            return description + "; a master that runs with TLS closes plaintext connections: give --credentials DIR"
                    + " (or $WEIGHTSTORE_CREDENTIALS)";
        }
        return description;
    }
}
