package io.weightstore.weights;

import io.weightstore.store.Range;
import io.weightstore.store.StoreClient;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Writes stored files back to plain local files, read straight into the mapped output and checked
 * against the manifest's SHA-256 before the file appears under its name.
 */
public final class CheckpointExporter {
    private static final long CHUNK = 256L << 20;

    private final Catalog catalog;
    private final StoreClient store;

    public CheckpointExporter(Catalog catalog) {
        this.catalog = catalog;
        this.store = catalog.store();
    }

    /** Exports every file of the checkpoint into {@code outputDir}, keeping relative paths. */
    public List<ManifestFile> exportAll(String id, Path outputDir, LongConsumer progress) throws IOException {
        Manifest manifest = catalog.readyManifest(id);
        for (ManifestFile file : manifest.files()) {
            exportFile(id, file, resolveInside(outputDir, file.path()), progress);
        }
        store.releaseLeases();
        return manifest.files();
    }

    /** Exports one file of the checkpoint to {@code output}. */
    public ManifestFile exportOne(String id, String path, Path output, LongConsumer progress) throws IOException {
        Manifest manifest = catalog.readyManifest(id);
        ManifestFile file = manifest.file(path).orElseThrow(() -> new CheckpointException(CheckpointException.Code.NOT_FOUND,
                "checkpoint " + id + " has no file " + path));
        exportFile(id, file, output, progress);
        store.releaseLeases();
        return file;
    }

    private static Path resolveInside(Path dir, String relative) throws CheckpointException {
        Path target = dir.resolve(relative).normalize();
        if (!target.startsWith(dir.normalize())) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest path " + relative + " leaves the output directory");
        }
        return target;
    }

    private void exportFile(String id, ManifestFile file, Path output, LongConsumer progress) throws IOException {
        Path parent = output.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path partial = parent.resolve(output.getFileName() + ".partial");
        String key = CatalogKeys.file(id, file.path());
        try {
            try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Arena arena = Arena.ofShared()) {
                Sha256 sha = new Sha256();
                if (file.size() > 0) {
                    channel.write(ByteBuffer.allocate(1), file.size() - 1);
                    MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, file.size(), arena);
                    for (long done = 0; done < file.size(); done += CHUNK) {
                        MemorySegment chunk = mapped.asSlice(done, Math.min(CHUNK, file.size() - done));
                        store.readInto(key, List.of(new Range(done, chunk.byteSize())), chunk);
                        sha.update(chunk);
                        progress.accept(chunk.byteSize());
                    }
                    mapped.force();
                }
                String actual = sha.hex();
                if (!actual.equals(file.sha256())) {
                    throw new CheckpointException(CheckpointException.Code.CORRUPT, key + " read back with sha256 " + actual
                            + ", manifest says " + file.sha256());
                }
            }
            Files.move(partial, output, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }
}
