package io.weightstore.cli;

/** What the {@code weightstore} command returns: the same codes from every verb. */
public final class ExitCodes {
    public static final int OK = 0;
    /** The work failed, or it found bad data (a verify that is not OK, say). */
    public static final int FAILURE = 1;
    /** The command line was wrong: an unknown flag, a bad value, a missing argument. */
    public static final int USAGE = 2;
    /** Stopped by Ctrl-C or SIGTERM. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {}
}
