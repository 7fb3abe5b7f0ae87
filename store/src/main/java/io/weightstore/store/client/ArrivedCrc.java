package io.weightstore.store.client;

import io.weightstore.store.checksum.Crc32cCombine;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The CRC32C of what a read delivered, computed by the client as the bytes landed, while they were
 * in cache, so that whoever checks them against a CRC of their own needs no second pass. The read's
 * pieces arrive in parallel and each reports its CRC once it is whole (a piece that failed on one
 * replica reports only from the one that served it); they are joined in destination order.
 */
public final class ArrivedCrc {
    private record Piece(long length, int crc32c) {}

    private final ConcurrentSkipListMap<Long, Piece> pieces = new ConcurrentSkipListMap<>();

    void piece(long dstOffset, long length, int crc32c) {
        if (length > 0) {
            pieces.put(dstOffset, new Piece(length, crc32c));
        }
    }

    /**
     * The CRC32C of the {@code bytes} the read delivered; call once it has returned.
     *
     * @throws IllegalStateException if the pieces reported do not cover them exactly
     */
    public int crc32c(long bytes) {
        int crc = 0;
        long at = 0;
        for (Map.Entry<Long, Piece> entry : pieces.entrySet()) {
            if (entry.getKey() != at) {
                throw new IllegalStateException("no CRC arrived for bytes " + at + ".." + entry.getKey() + " of the read");
            }
            crc = Crc32cCombine.combine(crc, entry.getValue().crc32c(), entry.getValue().length());
            at += entry.getValue().length();
        }
        if (at != bytes) {
            throw new IllegalStateException("CRCs arrived for " + at + " bytes of the read's " + bytes);
        }
        return crc;
    }
}
