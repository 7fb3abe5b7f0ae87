package io.weightstore.store.api;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The bytes of an object to put, read at any position: a put reads each of its slices on a thread of its own, a piece
 * at a time, so the object is never in memory whole. A file is one; so are bytes gathered from elsewhere as they are
 * asked for.
 */
@FunctionalInterface
public interface PositionalSource {
    /**
     * Fills {@code into} with the bytes from {@code position}; called from several threads at once, for distinct ranges.
     *
     * @throws IOException when they cannot be read, or the source ends before {@code into} is full
     */
    void read(long position, MemorySegment into) throws IOException;
}
