package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One file of a checkpoint.
 *
 * @param sha256 hex digest, or null while the file has not been stored yet
 * @param kind "weight" or "metadata"
 * @param headerLength safetensors header length N, null for other files
 * @param tensorCount safetensors tensor count, null for other files
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ManifestFile(String path, long size, String sha256, String kind, Long headerLength, Integer tensorCount) {
    public static final String WEIGHT = "weight";
    public static final String METADATA = "metadata";

    public ManifestFile withSha256(String digest) {
        return new ManifestFile(path, size, digest, kind, headerLength, tensorCount);
    }

    public boolean isWeight() {
        return WEIGHT.equals(kind);
    }
}
