package io.weightstore.weights.loader;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What checking every file of a checkpoint against the manifest's SHA-256 took ({@code load --verify}).
 *
 * @param columnLayouts the column layouts checked too, those a tensor-parallel load reads
 * @param bytes of the files and the layouts
 */
public record FilesVerified(int files, int columnLayouts, long bytes, double seconds) {
    @JsonProperty
    public double gbPerSecond() {
        return seconds <= 0 ? 0 : bytes / seconds / 1e9;
    }
}
