package io.weightstore.store.api;

import java.util.List;
import java.util.Optional;

/** One page of a prefix listing; {@code next} is the key to continue after, empty on the last page. */
public record ListPage(List<ObjectMeta> objects, Optional<String> next) {
    public ListPage {
        objects = List.copyOf(objects);
    }
}
