package io.weightstore.weights.loader;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What loading one rank's share of a checkpoint took: tensors, bytes read against the rank's share
 * and the whole checkpoint, and time. One report type for {@code load}, quickstart and the benchmarks.
 *
 * @param bytesRead object bytes the store client read for this rank
 * @param shareBytes bytes of tensor data this rank needed (its share)
 * @param checkpointBytes bytes of tensor data in the whole checkpoint
 */
public record LoadReport(int rank, int worldSize, int tensors, long bytesRead, long shareBytes, long checkpointBytes,
        double seconds) {
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
