package io.weightstore.store.api;

/**
 * Space on the nodes that are up: what they hold in all, what is allocated, and how much of that
 * belongs to objects the master may evict (unpinned, not being read).
 */
public record Room(long capacity, long used, long evictable, int nodesUp) {
    /** Bytes a new object could take, after evicting everything evictable. */
    public long available() {
        return Math.max(0, capacity - used) + evictable;
    }
}
