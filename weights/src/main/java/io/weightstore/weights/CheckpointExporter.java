package io.weightstore.weights;

import io.weightstore.store.api.Progress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes stored files back to plain local files, read straight into the mapped output and checked
 * against the manifest's SHA-256 before each file appears under its name.
 */
public final class CheckpointExporter {
    private final Catalog catalog;

    public CheckpointExporter(Catalog catalog) {
        this.catalog = catalog;
    }

    /** Exports every file of the checkpoint into {@code outputDir}, keeping relative paths. */
    public List<ManifestFile> exportAll(CheckpointId id, Path outputDir, Progress progress) throws IOException {
        Manifest manifest = catalog.readyManifest(id);
        progress.started(manifest.totalBytes());
        List<StoredFile> files = catalog.files(manifest);
        try (HeldFiles held = HeldFiles.of(files)) {
            for (StoredFile file : files) {
                file.exportTo(LocalFiles.resolveInside(outputDir, file.path()), progress);
            }
        }
        return manifest.files();
    }

    /** Exports one file of the checkpoint to {@code output}. */
    public ManifestFile exportOne(CheckpointId id, String path, Path output, Progress progress) throws IOException {
        Manifest manifest = catalog.readyManifest(id);
        ManifestFile file = manifest.file(path).orElseThrow(() -> new CheckpointException(CheckpointException.Code.NOT_FOUND,
                "checkpoint " + id + " has no file " + path));
        progress.started(file.size());
        catalog.file(manifest, file).exportTo(output, progress);
        return file;
    }
}
