package io.weightstore.cli.ops;

/**
 * Whether a server should get traffic now, and in a few words why: {@code /ready} answers 200 or
 * 503 with it.
 */
public record Readiness(boolean ready, String state) {
    public static Readiness ready(String state) {
        return new Readiness(true, state);
    }

    public static Readiness notReady(String state) {
        return new Readiness(false, state);
    }
}
