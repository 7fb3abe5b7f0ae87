package io.weightstore.weights.loader;

import io.weightstore.format.TensorInfo;
import io.weightstore.weights.CheckpointException;
import io.weightstore.weights.checks.TensorCrcs;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What the bytes of one tensor, or one rank's shard of it, must hash to, as the import recorded it
 * (see {@link TensorCrcs}). The shard is recognised by where its bytes lie, whichever plan asked for
 * it: the whole tensor, a block of rows a world of 2, 4 or 8 splits evenly, or those ranks' columns
 * gathered from every row. A shard the import recorded no CRC for is checked by the nodes only.
 *
 * @param part what was read, for messages ("the whole tensor", "rank 1 of 2's columns")
 * @param crc32c what the import recorded, or empty when it recorded nothing for this shard
 */
record ShardCheck(String file, String tensor, String part, OptionalInt crc32c) {
    /** The check of {@code read} of the tensor at {@code location}. */
    static ShardCheck of(CheckpointSource.Location location, ShardRead read) {
        TensorInfo info = location.info();
        Optional<TensorCrcs> crcs = location.crcs();
        if (crcs.isEmpty()) {
            return new ShardCheck(location.file(), info.name(), describe(read), OptionalInt.empty());
        }
        if (read.offset() == 0 && read.bytes() == info.byteSize()) {
            return new ShardCheck(location.file(), info.name(), "the whole tensor", OptionalInt.of(crcs.get().crc32c()));
        }
        long bytes = read.bytes();
        if (read.contiguous() && bytes > 0 && info.byteSize() % bytes == 0 && read.offset() % bytes == 0) {
            int worldSize = (int) Math.min(Integer.MAX_VALUE, info.byteSize() / bytes);
            int rank = (int) (read.offset() / bytes);
            OptionalInt rows = crcs.get().row(worldSize, rank);
            if (rows.isPresent()) {
                return new ShardCheck(location.file(), info.name(), "rank " + rank + " of " + worldSize + "'s rows", rows);
            }
        }
        long rows = info.shape().isEmpty() ? 0 : info.shape().getFirst();
        long block = read.blockLength();
        if (rows > 0 && read.count() == rows && block > 0 && info.byteSize() % rows == 0) {
            long rowBytes = info.byteSize() / rows;
            if ((rows == 1 || read.stride() == rowBytes) && rowBytes % block == 0 && read.offset() % block == 0) {
                int worldSize = (int) Math.min(Integer.MAX_VALUE, rowBytes / block);
                int rank = (int) (read.offset() / block);
                OptionalInt columns = crcs.get().column(worldSize, rank);
                if (columns.isPresent()) {
                    return new ShardCheck(location.file(), info.name(), "rank " + rank + " of " + worldSize + "'s columns", columns);
                }
            }
        }
        return new ShardCheck(location.file(), info.name(), describe(read), OptionalInt.empty());
    }

    private static String describe(ShardRead read) {
        return read.count() + " x " + read.blockLength() + " bytes from byte " + read.offset();
    }

    /** Whether this client checks the shard itself, rather than trusting the nodes' checks. */
    boolean byClient() {
        return crc32c.isPresent();
    }

    /** Fails with CORRUPT, naming the tensor, shard and both CRCs, unless {@code actual} is the recorded CRC. */
    void verifyCrc(int actual) throws CheckpointException {
        if (crc32c.isPresent() && actual != crc32c.getAsInt()) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "tensor " + tensor + " of " + file + ", " + part
                    + ": received bytes with CRC32C " + String.format("%08x", actual) + ", the import recorded "
                    + String.format("%08x", crc32c.getAsInt()) + "; a node, or something between it and this client, sent other"
                    + " bytes than were stored");
        }
    }
}
