package io.weightstore.gateway;

import java.util.Locale;

/**
 * The Content-Type of a checkpoint file, from its name: the store keeps none, and a browser or
 * {@code curl -O} does better with JSON and text marked as such than with everything as bytes.
 */
final class ContentTypes {
    private ContentTypes() {}

    static String of(String key) {
        String name = key.toLowerCase(Locale.ROOT);
        if (name.endsWith(".json")) {
            return "application/json";
        }
        if (name.endsWith(".txt") || name.endsWith(".md")) {
            return "text/plain; charset=utf-8";
        }
        return "application/octet-stream";
    }
}
