package io.weightstore.weights.loader;

import io.weightstore.store.api.ObjectMeta;
import io.weightstore.weights.CheckpointException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the tensors of a batch that were read as contiguous ranges of their objects against the
 * CRC32C their import recorded, at almost no pass over their bytes: the client checked each range's
 * whole blocks as they arrived, and {@link CheckedBlocks} joins their CRCs. (Column shards are hashed
 * by the store client as they land: {@code ArrivedCrc}.)
 */
final class BatchCheck {
    /**
     * One part of a batch: {@code length} bytes at {@code offset} in it, read from {@code object} at
     * {@code objectStart}. {@code continuesRead}: the part was read in one range with the part before
     * it, its bytes following that part's in the object and in the batch (parts of no bytes aside).
     */
    record Part(ShardCheck check, long offset, long length, ObjectMeta object, long objectStart, boolean continuesRead) {}

    private BatchCheck() {}

    /**
     * Verifies each part whose CRC was recorded against its bytes in {@code data}.
     *
     * @throws CheckpointException CORRUPT naming the first tensor, in batch order, whose bytes differ
     */
    static void verify(List<Part> parts, MemorySegment data) throws CheckpointException {
        int[] crcs = new int[parts.size()];
        for (int i = 0; i < parts.size(); ) {
            // A part of no bytes has the CRC32C of nothing, wherever it lies.
            i = parts.get(i).length() == 0 ? i + 1 : joinRead(parts, i, data, crcs);
        }
        for (int i = 0; i < parts.size(); i++) {
            parts.get(i).check().verifyCrc(crcs[i]);
        }
    }

    /**
     * Whether two records are of one object as written: its checksums are the same, wherever its copies
     * are. A relocation while a batch is checked (a node lost) gives its later parts a record of their own.
     */
    private static boolean sameVersion(ObjectMeta a, ObjectMeta b) {
        return a == b || a.key().equals(b.key()) && a.createdAt().equals(b.createdAt());
    }

    /**
     * Fills {@code crcs} for the parts read in one range with part {@code first}, which has bytes; parts
     * of no bytes among them are passed over and left at the CRC32C of nothing. Returns the index of
     * the part after them.
     */
    private static int joinRead(List<Part> parts, int first, MemorySegment data, int[] crcs) {
        Part head = parts.get(first);
        List<Integer> members = new ArrayList<>();
        long end = head.objectStart();
        int next = first;
        for (; next < parts.size() && (next == first || parts.get(next).length() == 0 || parts.get(next).continuesRead());
                next++) {
            Part part = parts.get(next);
            if (part.length() == 0) {
                continue;
            }
            if (!sameVersion(part.object(), head.object()) || part.objectStart() != end
                    || part.offset() != head.offset() + (end - head.objectStart())) {
                throw new IllegalArgumentException("part at offset " + part.offset() + " continues no read: object " + part.object().key()
                        + " written " + part.object().createdAt() + " from " + part.objectStart() + ", the read is at " + end + " of "
                        + head.object().key() + " written " + head.object().createdAt());
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
