package io.weightstore.weights;

import io.weightstore.format.SafetensorsHeader;
import io.weightstore.format.TensorInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A file's column-split tensors laid out again for one tensor-parallel world size, stored beside the file
 * ({@code model import --tp-layout}). A rank's column shard of a tensor is a piece of every row: read from the file
 * it is a strided read, which the node gathers row by row (at 1-7 KiB a row, half the rate of a contiguous read).
 * Here each rank's shards lie end to end, rank after rank, so a rank's shard of each tensor is one contiguous range,
 * and its shards of the whole file are one range: rank 0's shard of each tensor in {@code tensors} order, then rank
 * 1's, and so on, each shard the rank's part of every row in row order, as a strided read delivers it. The import
 * lays out only tensors whose column shards at this world size its CRC table records, so each shard read from a
 * layout is checked against the same CRC as the strided read it replaces.
 *
 * @param worldSize the ranks the layout is for: one of the world sizes the CRC tables record shards for
 * @param tensors the tensors laid out, in the file's order
 * @param size the layout's bytes: the sum of its tensors' bytes
 * @param sha256 of the layout's bytes, which a full verify compares
 * @param checksumDigest of the stored object's block checksums, as for a file ({@code BlockChecksumDigest})
 * @param version the version of the checkpoint whose import stored the layout
 */
public record ColumnLayout(int worldSize, List<String> tensors, long size, String sha256, String checksumDigest, int version) {
    public ColumnLayout {
        tensors = List.copyOf(tensors);
    }

    /** Bytes of the layout per rank: all of a rank's shards, one after another. */
    public long rankBytes() {
        return size / worldSize;
    }

    /**
     * Where each tensor's rank-0 shard starts in the layout (rank r's is {@code r * rankBytes()} further), given the
     * header of the file it was made from; CORRUPT when the layout cannot be of that file (a tensor it names is not
     * in the header, or does not split evenly, or the sizes do not add up).
     */
    public Map<String, Long> shardOffsets(SafetensorsHeader header, String what) throws CheckpointException {
        Map<String, TensorInfo> byName = header.tensorsByName();
        Map<String, Long> offsets = new HashMap<>();
        long at = 0;
        for (String name : tensors) {
            TensorInfo tensor = byName.get(name);
            if (tensor == null || tensor.byteSize() % worldSize != 0) {
                throw corrupt(what, tensor == null ? "names tensor " + name + ", which the file does not have"
                        : "names tensor " + name + ", whose " + tensor.byteSize() + " bytes do not split over " + worldSize + " ranks");
            }
            offsets.put(name, at);
            at += tensor.byteSize() / worldSize;
        }
        if (at * worldSize != size) {
            throw corrupt(what, "holds " + size + " bytes, but its tensors have " + at * worldSize);
        }
        return offsets;
    }

    private CheckpointException corrupt(String what, String why) {
        return new CheckpointException(CheckpointException.Code.CORRUPT, "the column layout for " + worldSize + " ranks of " + what
                + " " + why);
    }
}
