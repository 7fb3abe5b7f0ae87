package io.weightstore.jlama.serve;

import java.time.Duration;
import java.util.Optional;

/**
 * The client left before its answer was written, or was too slow and had its connection closed. Not
 * an error of the server: the server says so in one quiet note on the access log line, with whether
 * a generation stopped for it (a stream whose next token found no one to take it).
 */
final class ClientGone extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final String WENT_AWAY = "client went away";

    private final String note;
    private final transient Optional<ApiError> answer;

    ClientGone(Throwable cause) {
        this(cause, WENT_AWAY, Optional.empty());
    }

    private ClientGone(Throwable cause, String note, Optional<ApiError> answer) {
        super(note + (cause == null ? "" : ": " + cause.getMessage()), cause, false, false);
        this.note = note;
        this.answer = answer;
    }

    /** A body cut short (before its length, or its last chunk): nothing of the answer went out yet. */
    static ClientGone sendingBody(Throwable cause) {
        return new ClientGone(cause, WENT_AWAY, Optional.of(ApiError.badBody("the request ended before its body did")));
    }

    /** A body not whole within {@code limit}; its status is logged, though the closed connection takes no answer. */
    static ClientGone sentTooSlowly(Duration limit) {
        return new ClientGone(null, "client sent its body too slowly: not whole after " + limit.toMillis() + " ms; connection closed",
                Optional.of(ApiError.requestTimeout("the request body did not arrive whole within " + limit.toMillis() + " ms")));
    }

    /** A part of the answer the client took nothing of for {@code limit}. */
    static ClientGone readTooSlowly(Duration limit) {
        return new ClientGone(null, "client took nothing of the answer for " + limit.toMillis() + " ms; connection closed",
                Optional.empty());
    }

    /** A stream whose writes waited on the client for {@code limit} in all. */
    static ClientGone keptTheStreamWaiting(Duration limit) {
        return new ClientGone(null, "client took the stream too slowly: it waited on the client for " + limit.toMillis()
                + " ms in all; connection closed", Optional.empty());
    }

    /** The same departure, found by a generation that stopped for it. */
    ClientGone stoppedGeneration() {
        ClientGone stopped = new ClientGone(getCause(), note + "; its generation stopped", answer);
        for (Throwable suppressed : getSuppressed()) {
            stopped.addSuppressed(suppressed);
        }
        return stopped;
    }

    /** What to answer, where nothing of the answer went out yet: a client that only stopped sending may still read it. */
    Optional<ApiError> answer() {
        return answer;
    }

    String note() {
        return note;
    }
}
