package io.weightstore.weights;

import java.nio.file.Path;

/**
 * What to import.
 *
 * @param replace import over a READY checkpoint of the same id
 * @param parallelFiles files uploaded at once (each is also cut into slices sent in parallel)
 */
public record ImportRequest(CheckpointId checkpointId, String modelId, String revision, Path source, int replicas, boolean replace,
        int parallelFiles) {
    public ImportRequest {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas);
        }
        if (parallelFiles < 1) {
            throw new IllegalArgumentException("parallelFiles must be >= 1: parallelFiles=" + parallelFiles);
        }
    }
}
