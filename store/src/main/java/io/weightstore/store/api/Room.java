package io.weightstore.store.api;

import java.time.Instant;
import java.util.Optional;

/**
 * Space on the nodes that are up: what they hold in all, what is allocated, how much of that evicting
 * would free for the caller now (the room of objects the master may evict, unpinned and not being read,
 * that no other writer's live write grant reaches), and how much of it no object holds but a write grant
 * may still reach.
 */
public record Room(long capacity, long used, long evictable, Held held, int nodesUp) {
    /**
     * Room counted in {@code used} that was freed (a put aborted, an object deleted or replaced soon
     * after it was written) while a write grant for it still lives, and is held back until the grant
     * has expired: the caller's own, which a put of its own may take at once, and other writers', which
     * returns by {@code othersUntil} at the latest.
     */
    public record Held(long forCaller, long forOthers, Optional<Instant> othersUntil) {
        public long total() {
            return forCaller + forOthers;
        }
    }

    /** Bytes a new object of the caller's could take, after evicting everything evictable. */
    public long available() {
        return Math.max(0, capacity - used) + evictable + held.forCaller();
    }
}
