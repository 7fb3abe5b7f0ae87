package io.weightstore.gateway.s3;

import io.weightstore.store.api.KeyOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One page of a listing: the objects and common prefixes after the request's marker, in key order,
 * at most max-keys of them together.
 *
 * @param last what the page ended with (a key or a common prefix), where a truncated listing continues
 */
public record ListPage(List<ObjectInfo> contents, List<String> commonPrefixes, boolean truncated, Optional<String> last) {
    public ListPage {
        contents = List.copyOf(contents);
        commonPrefixes = List.copyOf(commonPrefixes);
    }

    /**
     * The page {@code request} asks for out of every object, {@code sorted} in {@link KeyOrder}.
     * Keys with the delimiter after the prefix roll up into one common prefix each (up to and with the
     * delimiter). Whatever sorts at or before the marker is skipped, and so is a common prefix equal
     * to it: a listing that ended on a common prefix continues after all of its keys.
     */
    public static ListPage of(List<ObjectInfo> sorted, ListRequest request) {
        List<ObjectInfo> contents = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String after = request.after().orElse(null);
        String last = null;
        for (ObjectInfo object : sorted) {
            String key = object.key();
            if (!key.startsWith(request.prefix())) {
                continue;
            }
            String rolledUp = rollUp(key, request);
            boolean beforeMarker = after != null && KeyOrder.compare(key, after) <= 0;
            if (beforeMarker || rolledUp != null && (rolledUp.equals(last) || rolledUp.equals(after))) {
                continue;
            }
            if (contents.size() + prefixes.size() == request.maxKeys()) {
                return new ListPage(contents, prefixes, request.maxKeys() > 0, Optional.ofNullable(last));
            }
            if (rolledUp != null) {
                prefixes.add(rolledUp);
                last = rolledUp;
            } else {
                contents.add(object);
                last = key;
            }
        }
        return new ListPage(contents, prefixes, false, Optional.ofNullable(last));
    }

    /** The common prefix {@code key} rolls up into, or null when it is listed as itself. */
    private static String rollUp(String key, ListRequest request) {
        if (request.delimiter().isEmpty()) {
            return null;
        }
        int at = key.indexOf(request.delimiter(), request.prefix().length());
        return at < 0 ? null : key.substring(0, at + request.delimiter().length());
    }
}
