package io.weightstore.store.grpc;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.weightstore.store.api.StoreException;

/** The one mapping between store error codes and gRPC statuses, used by both ends of the master RPC. */
final class GrpcStatuses {
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    /** On a refusal by a master of a group that does not lead: the leader's HOST:PORT, or {@link #NO_LEADER}. */
    static final Metadata.Key<String> LEADER = Metadata.Key.of("leader", Metadata.ASCII_STRING_MARSHALLER);
    static final String NO_LEADER = "none";

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
                ? what + ": master unavailable (" + e.getStatus().getCode() + (description == null ? "" : ": " + description) + ")"
                : description == null ? what + ": " + e.getStatus().getCode() : description;
        return new StoreException(code, message, e);
    }
}
