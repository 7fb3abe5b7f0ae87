package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weightstore.store.api.StoreException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;

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
            case HELD, PROTOCOL, IO -> Status.Code.INTERNAL;
        };
        return Status.fromCode(code).withDescription(e.getMessage()).asRuntimeException();
    }

    static StoreException toStoreException(StatusRuntimeException e, String what) {
        StoreException.Code code = switch (e.getStatus().getCode()) {
            case INVALID_ARGUMENT, OUT_OF_RANGE -> StoreException.Code.INVALID_ARGUMENT;
            case NOT_FOUND -> StoreException.Code.NOT_FOUND;
            case ALREADY_EXISTS -> StoreException.Code.ALREADY_EXISTS;
            case FAILED_PRECONDITION, ABORTED -> StoreException.Code.FAILED_PRECONDITION;
            case RESOURCE_EXHAUSTED -> StoreException.Code.NO_SPACE;
            case DATA_LOSS -> StoreException.Code.CORRUPT;
            case UNAUTHENTICATED, PERMISSION_DENIED -> StoreException.Code.UNAUTHENTICATED;
            case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> StoreException.Code.UNAVAILABLE;
            default -> StoreException.Code.IO;
        };
        String description = e.getStatus().getDescription();
        String message = e.getStatus().getCode() == Status.Code.UNAVAILABLE || e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
                ? what + ": master unavailable: " + unreachable(e)
                : description == null ? what + ": " + e.getStatus().getCode() : description;
        return new StoreException(code, message, e);
    }

    /**
     * Why the master could not be reached, from the deepest cause gRPC kept: its status only says
     * "io exception", while the socket error says what an operator can act on.
     */
    private static String unreachable(StatusRuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
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
