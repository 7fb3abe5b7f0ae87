package io.weightstore.format;

import java.util.Objects;
import java.util.Optional;

/**
 * One file of a checkpoint directory.
 *
 * @param path relative path with '/' separators
 * @param header the validated header, for safetensors files only
 */
public record CheckpointFile(String path, long size, FileKind kind, Optional<SafetensorsHeader> header) {
    public CheckpointFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(header, "header");
    }
}
