package io.weightstore.store.master;

import io.weightstore.store.api.ObjectMeta;
import java.util.List;
import java.util.Map;

/** Decides which unpinned, unleased objects go first when the store needs room. */
interface Eviction {
    /** {@code candidates} in the order to evict them; {@code lastRead} holds the last read time (ms) of each key. */
    List<ObjectMeta> order(List<ObjectMeta> candidates, Map<String, Long> lastRead);
}
