package io.weightstore.store.wire;

/**
 * A frame that breaks the protocol's rules. {@code closeConnection} when the framing can no longer
 * be trusted (the rest of the stream cannot be parsed), so the connection must end after the answer.
 */
public final class FrameException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Status status;
    private final boolean closeConnection;

    public FrameException(Status status, boolean closeConnection, String message) {
        super(message, null, false, false);
        this.status = status;
        this.closeConnection = closeConnection;
    }

    public Status status() {
        return status;
    }

    public boolean closeConnection() {
        return closeConnection;
    }
}
