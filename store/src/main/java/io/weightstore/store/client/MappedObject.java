package io.weightstore.store.client;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.pool.StitchedMapping;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * An object seen in place ({@link ObjectReader#mapReadOnly}): its bytes, one read-only segment over
 * pools on this host, and the copies that segment maps, which its check reads. The check goes by
 * where these bytes lie, not by where the object is when it runs: a relocation in between (a node
 * lost, a repair) may name other copies on this host, and checking those would pass a segment whose
 * own copy is rotten.
 */
public final class MappedObject {
    private final LocalMapper mapper;
    private final ObjectMeta object;
    private final List<StitchedMapping.Piece> pieces;
    private final MemorySegment bytes;

    MappedObject(LocalMapper mapper, ObjectMeta object, List<StitchedMapping.Piece> pieces, MemorySegment bytes) {
        this.mapper = mapper;
        this.object = object;
        this.pieces = List.copyOf(pieces);
        this.bytes = bytes;
    }

    /** The object's bytes, valid as long as the arena they were mapped in. */
    public MemorySegment bytes() {
        return bytes;
    }

    /**
     * Checks every checksum block of the mapped copies against the checksums computed when the object
     * was written; CORRUPT names the first slice and block that differ.
     */
    public void check() throws IOException {
        mapper.check(object, pieces, bytes);
    }
}
