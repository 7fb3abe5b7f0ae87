package io.weightstore.jlama.serve;

/**
 * The client closed its connection before the answer was written. Not an error of the server: the
 * generation for it stops, and the server says so in one quiet log line.
 */
final class ClientGone extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ClientGone(Throwable cause) {
        super("client closed the connection: " + cause.getMessage(), cause, false, false);
    }
}
