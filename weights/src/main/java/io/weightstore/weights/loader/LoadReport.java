package io.weightstore.weights.loader;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What loading one rank's share of a checkpoint took: tensors, bytes read against the rank's share
 * and the whole checkpoint, and time. One report type for {@code load}, quickstart and the benchmarks.
 *
 * @param bytesRead object bytes the store client read for this rank
 * @param shareBytes bytes of tensor data this rank needed (its share)
 * @param checkpointBytes bytes of tensor data in the whole checkpoint
 * @param clientChecked tensors (whole, or this rank's shard) this client checked against the CRC32C the import recorded
 * @param nodeChecked tensors read whose shard the import recorded no CRC for (or the checks were off): their partly read
 *     checksum blocks and strided rows were checked by the node that sent them only
 * @param seenInPlace tensors not read but handed out in place from a pool mapped on this host: checked against their
 *     checksum blocks by their file's pass over the mapping, unless the load was asked not to check mapped files
 * @param fromColumnLayouts column shards read as one range each of their file's column layout for this world size, rather
 *     than strided from the file
 * @param verified when asked for, checking every file against the manifest's SHA-256 before the load; null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record LoadReport(int rank, int worldSize, int tensors, long bytesRead, long shareBytes, long checkpointBytes,
        double seconds, int clientChecked, int nodeChecked, int seenInPlace, int fromColumnLayouts, FilesVerified verified) {
    /** The report of a load that {@code verification} preceded. */
    public LoadReport withVerified(FilesVerified verification) {
        return new LoadReport(rank, worldSize, tensors, bytesRead, shareBytes, checkpointBytes, seconds, clientChecked, nodeChecked,
                seenInPlace, fromColumnLayouts, verification);
    }

    /** Bytes read per byte needed: 1.0 when nothing is read twice or read but not needed. */
    @JsonProperty
    public double amplification() {
        return shareBytes == 0 ? 0 : (double) bytesRead / shareBytes;
    }

    @JsonProperty
    public double fractionOfCheckpoint() {
        return checkpointBytes == 0 ? 0 : (double) bytesRead / checkpointBytes;
    }

    @JsonProperty
    public double gbPerSecond() {
        return seconds <= 0 ? 0 : bytesRead / seconds / 1e9;
    }
}
