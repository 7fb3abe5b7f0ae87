package io.weightstore.cli.logging;

import java.util.Locale;

/** How log lines look: one line of text per event (the default), or one JSON object per line for a log shipper. */
public enum LogFormat {
    TEXT,
    JSON;

    public static final String ENV = "WEIGHTSTORE_LOG_FORMAT";

    /** {@code text} or {@code json}, any case; anything else is a usage error naming both. */
    public static LogFormat parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "text" -> TEXT;
            case "json" -> JSON;
            default -> throw new IllegalArgumentException("log format '" + text + "' is neither text nor json");
        };
    }

    /** What {@value #ENV} asks for, text when unset: logs written before the command line is read follow it too. */
    static LogFormat fromEnvironment() {
        String value = System.getenv(ENV);
        try {
            return value == null || value.isBlank() ? TEXT : parse(value);
        } catch (IllegalArgumentException e) {
            return TEXT; // the command's own --log-format default reads the variable again and says what is wrong
        }
    }
}
