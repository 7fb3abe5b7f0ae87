package io.weightstore.gateway.bucket;

import io.weightstore.store.api.StoreException;
import io.weightstore.store.client.ObjectReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The object of one read lease seen in place in the pools of this host's nodes
 * ({@link ObjectReader#mapReadOnly}), its bytes checked against the checksums computed when it was
 * written before any is used, and unmapped when the lease ends: the lease is what keeps the object,
 * and the room it lies in, from being removed or reused under the mapping.
 */
final class InPlaceView implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InPlaceView.class);

    private final Arena arena;
    private final Optional<MemorySegment> bytes;

    private InPlaceView(Arena arena, Optional<MemorySegment> bytes) {
        this.arena = arena;
        this.bytes = bytes;
    }

    /**
     * Maps the object {@code reader} holds and checks it unless {@code checks} has a current pass for
     * it. The view is empty when some slice has no copy here, or when the check or the mapping failed:
     * then the object is read through the store, which checks every read and tries the other copies.
     */
    static InPlaceView map(ObjectReader reader, InPlaceChecks checks) {
        Arena arena = Arena.ofShared();
        try {
            Optional<MemorySegment> mapped = reader.mapReadOnly(arena);
            if (mapped.isPresent() && !checks.current(reader.object())) {
                reader.checkMapped(mapped.get());
                checks.passed(reader.object());
            }
            return new InPlaceView(arena, mapped);
        } catch (IOException e) {
            boolean corrupt = e instanceof StoreException s && s.code() == StoreException.Code.CORRUPT;
            String why = corrupt ? "a copy here is corrupt" : "it cannot be mapped";
            log.warn("{} is read through the store rather than in place ({}): {}", reader.key(), why, e.getMessage());
            arena.close();
            return new InPlaceView(null, Optional.empty());
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** The whole object, read-only, valid until this view is closed; empty when it is to be read through the store. */
    Optional<MemorySegment> bytes() {
        return bytes;
    }

    /** Unmaps the object; no request may use {@link #bytes} any more. */
    @Override
    public void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
