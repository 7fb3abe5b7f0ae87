package io.weightstore.cli;

/**
 * What the {@code weightstore} command returns: the same codes from every verb. A process stopped by a signal exits as the
 * JVM does: 130 on Ctrl-C (SIGINT), 143 on SIGTERM (which the systemd units take as a clean stop).
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** The work failed, or it found bad data (a verify that is not OK, say). */
    public static final int FAILURE = 1;
    /** The command line was wrong: an unknown flag, a bad value, a missing argument. */
    public static final int USAGE = 2;

    private ExitCodes() {}
}
