package io.weightstore.weights;

import io.weightstore.format.ExcludedFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What to import.
 *
 * @param replicas copies of each slice of the files written; empty for the checkpoint's own count: one
 *     for a new checkpoint, and for a replace the count (and auto) of the version it replaces
 * @param replace import over a READY checkpoint of the same id
 * @param parallelFiles files uploaded at once (each is also cut into slices sent in parallel)
 * @param exclude patterns of the source's files to leave out ({@link ExcludedFiles}); empty for the
 *     checkpoint's own: none for a new checkpoint, and for a replace those of the version it replaces
 * @param columnLayouts the layouts for tensor-parallel ranks to write beside the safetensors files
 */
public record ImportRequest(CheckpointId checkpointId, String modelId, String revision, Path source, OptionalInt replicas,
        boolean replace, int parallelFiles, Optional<List<String>> exclude, ColumnLayoutPlan columnLayouts) {
    public ImportRequest {
        if (replicas.isPresent() && replicas.getAsInt() < 1) {
            throw new IllegalArgumentException("replicas must be >= 1: replicas=" + replicas.getAsInt());
        }
        if (parallelFiles < 1) {
            throw new IllegalArgumentException("parallelFiles must be >= 1: parallelFiles=" + parallelFiles);
        }
        exclude = exclude.map(List::copyOf);
        exclude.ifPresent(ExcludedFiles::of);
        Objects.requireNonNull(columnLayouts, "columnLayouts");
    }

    /** An import that writes no column layouts. */
    public ImportRequest(CheckpointId checkpointId, String modelId, String revision, Path source, OptionalInt replicas,
            boolean replace, int parallelFiles, Optional<List<String>> exclude) {
        this(checkpointId, modelId, revision, source, replicas, replace, parallelFiles, exclude, ColumnLayoutPlan.NONE);
    }

    /** This import, writing {@code layouts} beside its safetensors files. */
    public ImportRequest withColumnLayouts(ColumnLayoutPlan layouts) {
        return new ImportRequest(checkpointId, modelId, revision, source, replicas, replace, parallelFiles, exclude, layouts);
    }

    /** An import that leaves out what the checkpoint's own patterns leave out. */
    public ImportRequest(CheckpointId checkpointId, String modelId, String revision, Path source, OptionalInt replicas, boolean replace,
            int parallelFiles) {
        this(checkpointId, modelId, revision, source, replicas, replace, parallelFiles, Optional.empty());
    }

    /** As above, written with {@code replicas} copies, a replace's too. */
    public ImportRequest(CheckpointId checkpointId, String modelId, String revision, Path source, int replicas, boolean replace,
            int parallelFiles) {
        this(checkpointId, modelId, revision, source, OptionalInt.of(replicas), replace, parallelFiles);
    }
}
