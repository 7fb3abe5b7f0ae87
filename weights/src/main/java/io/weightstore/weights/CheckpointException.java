package io.weightstore.weights;

import java.io.IOException;

/** A catalog operation that cannot be done, with a code to act on and a message that names the checkpoint. */
public final class CheckpointException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Code {
        /** The source directory or an argument is invalid; nothing was written. */
        INVALID,
        NOT_FOUND,
        /** The checkpoint is READY and replacing it was not asked for. */
        ALREADY_EXISTS,
        /** Another writer holds the checkpoint's lock. */
        LOCKED,
        /** The checkpoint is not READY (importing, failed, or being deleted). */
        NOT_READY,
        /** Stored bytes do not match the manifest. */
        CORRUPT,
        /** The checkpoint was imported by someone other than the importer the caller trusts. */
        UNTRUSTED,
        /** The store has no room for the checkpoint, even after evicting what it may. */
        NO_SPACE,
        /** A source file changed while the import read it; running the import again, once it is still, may succeed. */
        CHANGED,
        /** Stored data in a format a newer weightstore wrote: this one cannot read it, and an upgrade can. */
        UNSUPPORTED,
        /**
         * Fewer storage nodes are up than the copies asked for: a valid request the cluster cannot do now, which the
         * same call may do once more nodes are up (as the master says of a put); nothing was written.
         */
        TOO_FEW_NODES
    }

    private final Code code;

    public CheckpointException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public CheckpointException(Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
