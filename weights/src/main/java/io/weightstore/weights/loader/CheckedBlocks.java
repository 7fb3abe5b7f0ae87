package io.weightstore.weights.loader;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.checksum.Crc32cCombine;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CRC32C of each of the parts (tensors, or ranks' rows) of one contiguous range of an object that
 * the store client just read, without a second pass over their bytes: every checksum block wholly
 * inside a range the client reads is checked by the client itself as the bytes arrive off the socket,
 * or as they are copied out of a pool on this host, so those blocks hash to the object's recorded
 * block CRCs. A block inside one part counts as its recorded CRC. A block that parts share is cut at
 * their boundaries: every piece but the largest is hashed, and the largest one's CRC follows from the
 * block's and theirs. Of the two blocks at the range's ends, which only the node checked, every byte
 * inside the range is hashed. Compared with the CRC the import recorded for each part, the result
 * ties every byte to it, as hashing every byte again would. The store cuts a range into requests at
 * whole blocks only ({@code ReadPlanner}), so every block inside it was checked as it landed.
 */
final class CheckedBlocks {
    private static final Map<Integer, Crc32cCombine> JOINERS = new ConcurrentHashMap<>();

    /** Bytes {@code [from, to)} of the object, held by part {@code part}. */
    private record Piece(int part, long from, long to) {
        long length() {
            return to - from;
        }
    }

    private CheckedBlocks() {}

    /**
     * The CRC32C of each part of {@code bytes}, which hold {@code object}'s bytes from {@code start} on,
     * read through the client as one range: part {@code i} is the {@code lengths[i]} bytes after part
     * {@code i - 1}'s.
     */
    static int[] crc32cs(ObjectMeta object, long start, long[] lengths, MemorySegment bytes) {
        long end = start + bytes.byteSize();
        if (start < 0 || end > object.size()) {
            throw new IllegalArgumentException("range outside object " + object.key() + " of " + object.size() + " bytes: start=" + start
                    + " length=" + bytes.byteSize());
        }
        long[] partEnds = new long[lengths.length];
        long at = start;
        for (int i = 0; i < lengths.length; i++) {
            partEnds[i] = at += lengths[i];
        }
        if (at != end) {
            throw new IllegalArgumentException("parts of " + (at - start) + " bytes in a range of " + bytes.byteSize());
        }
        int blockSize = object.checksumBlockSize();
        Crc32cCombine wholeBlock = JOINERS.computeIfAbsent(blockSize, Crc32cCombine::forLength);
        int[] crcs = new int[lengths.length]; // each starts as the CRC32C of nothing, which any CRC joins onto unchanged
        List<Piece> pieces = new ArrayList<>();
        int part = 0;
        for (SliceMeta slice : object.slices()) {
            long sliceEnd = slice.offset() + slice.length();
            if (sliceEnd <= start || slice.offset() >= end) {
                continue;
            }
            for (int block = (int) ((Math.max(start, slice.offset()) - slice.offset()) / blockSize); ; block++) {
                long blockStart = slice.offset() + (long) block * blockSize;
                if (blockStart >= Math.min(end, sliceEnd)) {
                    break;
                }
                long blockEnd = Math.min(blockStart + blockSize, sliceEnd);
                long from = Math.max(blockStart, start);
                long to = Math.min(blockEnd, end);
                pieces.clear();
                for (long cut = from; cut < to; ) {
                    while (partEnds[part] <= cut) {
                        part++;
                    }
                    long pieceEnd = Math.min(to, partEnds[part]);
                    pieces.add(new Piece(part, cut, pieceEnd));
                    cut = pieceEnd;
                }
                boolean checkedByClient = from == blockStart && to == blockEnd;
                if (checkedByClient && pieces.size() == 1) {
                    int recorded = slice.crcs().get(block);
                    crcs[part] = blockEnd - blockStart == blockSize ? wholeBlock.combine(crcs[part], recorded)
                            : Crc32cCombine.combine(crcs[part], recorded, blockEnd - blockStart);
                    continue;
                }
                int[] pieceCrcs = checkedByClient ? shared(pieces, slice.crcs().get(block), start, bytes) : hashed(pieces, start, bytes);
                for (int i = 0; i < pieces.size(); i++) {
                    Piece piece = pieces.get(i);
                    crcs[piece.part()] = Crc32cCombine.combine(crcs[piece.part()], pieceCrcs[i], piece.length());
                }
            }
        }
        return crcs;
    }

    private static int[] hashed(List<Piece> pieces, long start, MemorySegment bytes) {
        int[] crcs = new int[pieces.size()];
        for (int i = 0; i < crcs.length; i++) {
            crcs[i] = hash(pieces.get(i), start, bytes);
        }
        return crcs;
    }

    /** The pieces of a block the client checked, whose CRC is {@code blockCrc}: all but the largest are hashed. */
    private static int[] shared(List<Piece> pieces, int blockCrc, long start, MemorySegment bytes) {
        int largest = 0;
        for (int i = 1; i < pieces.size(); i++) {
            if (pieces.get(i).length() > pieces.get(largest).length()) {
                largest = i;
            }
        }
        int[] crcs = new int[pieces.size()];
        int before = 0;
        for (int i = 0; i < largest; i++) {
            crcs[i] = hash(pieces.get(i), start, bytes);
            before = Crc32cCombine.combine(before, crcs[i], pieces.get(i).length());
        }
        int after = 0;
        long afterLength = 0;
        for (int i = largest + 1; i < pieces.size(); i++) {
            crcs[i] = hash(pieces.get(i), start, bytes);
            after = Crc32cCombine.combine(after, crcs[i], pieces.get(i).length());
            afterLength += pieces.get(i).length();
        }
        int throughLargest = Crc32cCombine.firstOf(blockCrc, after, afterLength);
        crcs[largest] = Crc32cCombine.secondOf(throughLargest, before, pieces.get(largest).length());
        return crcs;
    }

    private static int hash(Piece piece, long start, MemorySegment bytes) {
        return Checksums.crc32c(bytes.asSlice(piece.from() - start, piece.length()));
    }
}
