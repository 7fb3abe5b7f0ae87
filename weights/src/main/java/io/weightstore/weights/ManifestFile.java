package io.weightstore.weights;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.weightstore.format.FileKind;

/**
 * One file of a checkpoint.
 *
 * @param sha256 hex digest, or null while the file has not been stored yet
 * @param headerLength safetensors header length N, null for other files
 * @param tensorCount safetensors tensor count, null for other files
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ManifestFile(String path, long size, String sha256, FileKind kind, Long headerLength, Integer tensorCount) {
    public ManifestFile withSha256(String digest) {
        return new ManifestFile(path, size, digest, kind, headerLength, tensorCount);
    }

    @JsonIgnore
    public boolean isWeight() {
        return kind == FileKind.WEIGHT;
    }

    @JsonIgnore
    public boolean isSafetensors() {
        return headerLength != null;
    }
}
