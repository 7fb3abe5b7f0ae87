package io.weightstore.weights.loader;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What checking every file of a checkpoint against the manifest's SHA-256 took ({@code load --verify}). */
public record FilesVerified(int files, long bytes, double seconds) {
    @JsonProperty
    public double gbPerSecond() {
        return seconds <= 0 ? 0 : bytes / seconds / 1e9;
    }
}
