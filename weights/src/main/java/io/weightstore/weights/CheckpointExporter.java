package io.weightstore.weights;

import io.weightstore.store.api.Progress;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes stored files back to plain local files, read straight into the mapped output and checked
 * against the manifest's SHA-256 before each file appears under its name.
 */
public final class CheckpointExporter {
    /** The file that marks a directory an export is writing into; removed when the export ends. */
    public static final String EXPORTING = ".weightstore-export-in-progress";

    private final Catalog catalog;

    public CheckpointExporter(Catalog catalog) {
        this.catalog = catalog;
    }

    /**
     * Exports every file of the checkpoint into {@code outputDir}, keeping relative paths; it must be new or empty, and
     * no other export may be writing into it.
     */
    public List<ManifestFile> exportAll(CheckpointId id, Path outputDir, Progress progress) throws IOException {
        requireNoFile(outputDir);
        try (HeldCheckpoint held = HeldCheckpoint.of(catalog, id)) {
            Path claim = claimNewOrEmpty(outputDir);
            try {
                progress.started(held.manifest().totalBytes());
                for (StoredFile file : held.files()) {
                    file.exportTo(LocalFiles.resolveInside(outputDir, file.path()), progress);
                }
                return held.manifest().files();
            } finally {
                Files.deleteIfExists(claim);
            }
        }
    }

    /** Exports one file of the checkpoint to {@code output}, a file's path. */
    public ManifestFile exportOne(CheckpointId id, String path, Path output, Progress progress) throws IOException {
        if (Files.isDirectory(output)) {
            // Refused, not written into as output/<name>: the caller names the file itself, so a directory there is a mistake.
            throw new CheckpointException(CheckpointException.Code.INVALID, "output " + output
                    + " is a directory; exporting one file writes to the file named, such as " + output.resolve(Path.of(path).getFileName()));
        }
        // The file's lease is taken while the manifest's holds: read and let go first, the manifest could be switched by a
        // replace, which then removed this version's file before it was opened.
        try (HeldCheckpoint held = HeldCheckpoint.ofFile(catalog, id, path)) {
            StoredFile stored = held.files().getFirst();
            progress.started(stored.file().size());
            stored.exportTo(output, progress);
            return stored.file();
        }
    }

    private static void requireNoFile(Path outputDir) throws CheckpointException {
        if (Files.exists(outputDir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(outputDir)) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "output " + outputDir + " is a file: a whole checkpoint"
                    + " is exported into a new or empty directory (--path exports one file)");
        }
    }

    /**
     * Claims {@code outputDir} for this export with a marker file only one export can create, and returns the marker.
     * Files already in the directory would sit beside the checkpoint's (another checkpoint's shards beside this one's
     * index), and an import of the directory would read them all as one checkpoint; two exports at once would each find
     * it empty and mix their files.
     */
    private static Path claimNewOrEmpty(Path outputDir) throws IOException {
        Files.createDirectories(outputDir);
        Path claim = outputDir.resolve(EXPORTING);
        try {
            Files.createFile(claim);
        } catch (FileAlreadyExistsException e) {
            throw new CheckpointException(CheckpointException.Code.INVALID, "another export is writing into " + outputDir
                    + " (it holds " + EXPORTING + "; if no export runs, one was killed: delete the directory's contents first)");
        }
        try (Stream<Path> entries = Files.list(outputDir)) {
            if (entries.anyMatch(entry -> !entry.equals(claim))) {
                Files.delete(claim);
                throw new CheckpointException(CheckpointException.Code.INVALID, "output directory " + outputDir
                        + " is not empty: a checkpoint is exported only into a new or empty directory,"
                        + " so that no other files end up beside it");
            }
        }
        return claim;
    }
}
