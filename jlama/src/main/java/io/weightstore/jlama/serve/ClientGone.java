package io.weightstore.jlama.serve;

/**
 * The client closed its connection before the answer was written. Not an error of the server: the
 * server says so in one quiet log line, with whether a generation stopped for it (a stream whose
 * next token found no one to take it).
 */
final class ClientGone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Where the request was when the client went. */
    private enum When {
        SENDING_BODY,
        ANSWERING,
        GENERATING
    }

    private final When when;

    ClientGone(Throwable cause) {
        this(cause, When.ANSWERING);
    }

    private ClientGone(Throwable cause, When when) {
        super("client closed the connection: " + cause.getMessage(), cause, false, false);
        this.when = when;
    }

    /** A body cut short (before its length, or its last chunk): nothing of the answer went out yet. */
    static ClientGone sendingBody(Throwable cause) {
        return new ClientGone(cause, When.SENDING_BODY);
    }

    /** The same departure, found by a generation that stopped for it. */
    ClientGone stoppedGeneration() {
        return new ClientGone(getCause(), When.GENERATING);
    }

    /** Whether the answer is still to be started: a client that only stopped sending may still read one. */
    boolean beforeAnswer() {
        return when == When.SENDING_BODY;
    }

    String note() {
        return when == When.GENERATING ? "client went away; its generation stopped" : "client went away";
    }
}
