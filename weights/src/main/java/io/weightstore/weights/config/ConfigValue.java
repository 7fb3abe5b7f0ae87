package io.weightstore.weights.config;

import java.util.List;

/**
 * One setting of the configuration file, as written: a scalar, or a list of scalars (which stands
 * for the comma-separated form a flag takes, such as several masters), and where it is.
 */
public record ConfigValue(List<String> items, boolean list, int line, int column) {
    public ConfigValue {
        items = List.copyOf(items);
    }

    /** The value as a flag would take it: a list joined by commas. */
    public String text() {
        return String.join(",", items);
    }
}
