package io.weightstore.format;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One file of a checkpoint directory.
 *
 * @param path relative path with '/' separators
 * @param header the validated header, for safetensors files only
 * @param location the regular file that was validated, links resolved: what an import reads, so that a
 *     link pointed elsewhere since cannot change which file is stored
 */
public record CheckpointFile(String path, long size, FileKind kind, Optional<SafetensorsHeader> header, Path location) {
    public CheckpointFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(location, "location");
    }
}
