package io.weightstore.weights.loader;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.checksum.Crc32cCombine;
import io.weightstore.weights.CheckpointException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Checks every tensor of a batch that was just read against the CRC32C its import recorded. Parts
 * read as one contiguous range of their object cost almost no pass over their bytes: the client
 * checked the range's whole blocks as they arrived, and {@link CheckedBlocks} joins their CRCs. The
 * others (columns gathered from every row, whose blocks only the nodes checked) are cut into pieces
 * hashed on every core, each part's pieces joined with {@link Crc32cCombine}.
 */
final class BatchCheck {
    /** Large enough that a join costs nothing beside the hashing, small enough to spread a batch over the cores. */
    private static final long PIECE = 4L << 20;

    /**
     * One part of a batch: {@code length} bytes at {@code offset} in it, and, when they were read as
     * one contiguous range, the object they came from and where in it; {@code object} is null otherwise.
     * {@code continuesRead}: the part was read in one range with the part before it, its bytes
     * following that part's in the object and in the batch (parts of no bytes aside).
     */
    record Part(ShardCheck check, long offset, long length, ObjectMeta object, long objectStart, boolean continuesRead) {
        static Part gathered(ShardCheck check, long offset, long length) {
            return new Part(check, offset, length, null, 0, false);
        }
    }

    /** Bytes {@code [offset, offset + length)} of the batch, part of part {@code part}. */
    private record Piece(int part, long offset, long length) {}

    private BatchCheck() {}

    /**
     * Verifies each part whose CRC was recorded against its bytes in {@code data}.
     *
     * @throws CheckpointException CORRUPT naming the first tensor, in batch order, whose bytes differ
     */
    static void verify(List<Part> parts, MemorySegment data) throws CheckpointException {
        int[] crcs = new int[parts.size()];
        List<Piece> pieces = new ArrayList<>();
        for (int i = 0; i < parts.size(); ) {
            Part part = parts.get(i);
            if (part.object() != null) {
                i = joinRead(parts, i, data, crcs);
                continue;
            }
            if (part.check().byClient()) {
                pieces.add(new Piece(i, part.offset(), Math.min(PIECE, part.length())));
                for (long at = PIECE; at < part.length(); at += PIECE) {
                    pieces.add(new Piece(i, part.offset() + at, Math.min(PIECE, part.length() - at)));
                }
            }
            i++;
        }
        int[] pieceCrcs = IntStream.range(0, pieces.size()).parallel()
                .map(p -> Checksums.crc32c(data.asSlice(pieces.get(p).offset(), pieces.get(p).length()))).toArray();
        int p = 0;
        while (p < pieces.size()) {
            int part = pieces.get(p).part();
            int crc = pieceCrcs[p++];
            for (; p < pieces.size() && pieces.get(p).part() == part; p++) {
                crc = Crc32cCombine.combine(crc, pieceCrcs[p], pieces.get(p).length());
            }
            crcs[part] = crc;
        }
        for (int i = 0; i < parts.size(); i++) {
            parts.get(i).check().verifyCrc(crcs[i]);
        }
    }

    /**
     * Fills {@code crcs} for the parts read in one range with part {@code first}, the parts of no bytes
     * among them left at the CRC32C of nothing; returns the index of the part after them.
     */
    private static int joinRead(List<Part> parts, int first, MemorySegment data, int[] crcs) {
        Part head = parts.get(first);
        List<Integer> members = new ArrayList<>();
        long end = head.objectStart();
        int next = first;
        for (; next < parts.size() && (next == first || parts.get(next).continuesRead()); next++) {
            Part part = parts.get(next);
            if (part.length() == 0) {
                continue;
            }
            if (part.object() != head.object() || part.objectStart() != end || part.offset() != head.offset() + (end - head.objectStart())) {
                throw new IllegalArgumentException("part at offset " + part.offset() + " continues no read: object " + part.object().key()
                        + " from " + part.objectStart() + ", the read is at " + end + " of " + head.object().key());
            }
            members.add(next);
            end += part.length();
        }
        if (members.stream().noneMatch(i -> parts.get(i).check().byClient())) {
            return next;
        }
        long[] lengths = members.stream().mapToLong(i -> parts.get(i).length()).toArray();
        int[] joined = CheckedBlocks.crc32cs(head.object(), head.objectStart(), lengths,
                data.asSlice(head.offset(), end - head.objectStart()));
        for (int m = 0; m < members.size(); m++) {
            crcs[members.get(m)] = joined[m];
        }
        return next;
    }
}
