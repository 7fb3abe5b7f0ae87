package io.weightstore.store.api;

import java.io.IOException;

/** Every failure the store reports to its callers, with a code to act on and a message that names the object. */
public final class StoreException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong; the CLI maps codes to exit codes and the client decides retries on them. */
    public enum Code {
        INVALID_ARGUMENT,
        NOT_FOUND,
        ALREADY_EXISTS,
        /** Readers hold a lease, or another owner holds the lock. */
        FAILED_PRECONDITION,
        NO_SPACE,
        /** Not enough nodes up, or every replica of a slice failed. */
        UNAVAILABLE,
        /** A checksum did not match and no good replica was left. */
        CORRUPT,
        /** The embedded store is held by another process. */
        HELD,
        /** No credential, or one this cluster does not know. */
        UNAUTHENTICATED,
        /** A known caller whose role does not allow what it asked. */
        PERMISSION_DENIED,
        /** A peer broke the protocol. */
        PROTOCOL,
        IO
    }

    private final Code code;

    public StoreException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public StoreException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }

    /**
     * Whether no copy could serve the bytes asked for: every replica failed (UNAVAILABLE) or every one
     * was bad (CORRUPT). A command that looks at many objects reports such an object and goes on.
     */
    public boolean noCopyServed() {
        return code == Code.UNAVAILABLE || code == Code.CORRUPT;
    }
}
