package io.weightstore.store.master;

import io.weightstore.store.api.ObjectMeta;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Evicts the objects read longest ago first; an object never read counts from when it was sealed. */
final class LeastRecentlyRead implements Eviction {
    @Override
    public List<ObjectMeta> order(List<ObjectMeta> candidates, Map<String, Long> lastRead) {
        return candidates.stream()
                .sorted(Comparator.comparingLong(o -> lastRead.getOrDefault(o.key(), o.createdAt().toEpochMilli())))
                .toList();
    }
}
