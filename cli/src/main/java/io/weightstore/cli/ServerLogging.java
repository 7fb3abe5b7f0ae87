package io.weightstore.cli;

/** Long-running servers log registrations, recoveries and evictions at info; other commands only warn. */
final class ServerLogging {
    private ServerLogging() {}

    /** Must run before the first logger of the store is created; slf4j-simple reads levels then. */
    static void enable() {
        System.setProperty("org.slf4j.simpleLogger.log.io.weightstore", "info");
    }
}
