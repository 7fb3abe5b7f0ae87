package io.weightstore.store.wire;

/** A node's answer header: a status, a message for errors, and how many payload bytes follow. */
public record Response(Status status, String message, long payloadLength) {
    public static Response ok(long payloadLength) {
        return new Response(Status.OK, "", payloadLength);
    }

    public static Response refused(Status status, String message) {
        return new Response(status, message, 0);
    }
}
