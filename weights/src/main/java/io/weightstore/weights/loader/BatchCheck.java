package io.weightstore.weights.loader;

import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.checksum.Crc32cCombine;
import io.weightstore.weights.CheckpointException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Checks every tensor of a batch that was just read against the CRC32C its import recorded, on
 * every core: the batch's checked bytes are cut into pieces hashed in parallel, and each tensor's
 * pieces are joined with {@link Crc32cCombine}. The check is a pass over every byte the loader
 * receives; on one thread it would add to each batch's read as much time as a memory copy.
 */
final class BatchCheck {
    /** Large enough that a join costs nothing beside the hashing, small enough to spread a batch over the cores. */
    private static final long PIECE = 4L << 20;

    /** Bytes {@code [offset, offset + length)} of the batch, part of item {@code item}. */
    private record Piece(int item, long offset, long length) {}

    private BatchCheck() {}

    /**
     * Verifies each of {@code checks} whose CRC was recorded against its part of {@code data}: bytes
     * {@code offsets[i]} on, {@code lengths[i]} long.
     *
     * @throws CheckpointException CORRUPT naming the first tensor, in batch order, whose bytes differ
     */
    static void verify(List<ShardCheck> checks, MemorySegment data, long[] offsets, long[] lengths) throws CheckpointException {
        List<Piece> pieces = new ArrayList<>();
        for (int i = 0; i < checks.size(); i++) {
            if (!checks.get(i).byClient()) {
                continue;
            }
            long length = lengths[i];
            pieces.add(new Piece(i, offsets[i], Math.min(PIECE, length)));
            for (long at = PIECE; at < length; at += PIECE) {
                pieces.add(new Piece(i, offsets[i] + at, Math.min(PIECE, length - at)));
            }
        }
        int[] crcs = IntStream.range(0, pieces.size()).parallel()
                .map(p -> Checksums.crc32c(data.asSlice(pieces.get(p).offset(), pieces.get(p).length()))).toArray();
        int p = 0;
        while (p < pieces.size()) {
            int item = pieces.get(p).item();
            int crc = crcs[p++];
            for (; p < pieces.size() && pieces.get(p).item() == item; p++) {
                crc = Crc32cCombine.combine(crc, crcs[p], pieces.get(p).length());
            }
            checks.get(item).verifyCrc(crc);
        }
    }
}
