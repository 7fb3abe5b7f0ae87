package io.weightstore.weights.testing;

import io.weightstore.weights.GitBlobId;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A checkpoint laid out as {@code huggingface-cli download} leaves one in the hub cache: each file a blob
 * of the repository, a safetensors file's named by its SHA-256 (its LFS object id) and any other by its
 * Git blob id, and the snapshot a directory of relative links to them.
 */
public final class HubCacheLayout {
    private HubCacheLayout() {}

    /** Moves {@code checkpoint}'s files into {@code cache} as the snapshot {@code commit} of {@code repoId}; returns the snapshot. */
    public static Path write(Path checkpoint, Path cache, String repoId, String commit) throws IOException {
        Path repository = cache.resolve("models--" + repoId.replace("/", "--"));
        Path blobs = Files.createDirectories(repository.resolve("blobs"));
        Path snapshot = Files.createDirectories(repository.resolve("snapshots").resolve(commit));
        Files.createDirectories(repository.resolve("refs"));
        Files.writeString(repository.resolve("refs/main"), commit);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(checkpoint)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            String name = file.toString().endsWith(".safetensors") ? FileSha256.of(file)
                    : GitBlobId.of(MemorySegment.ofArray(Files.readAllBytes(file)));
            Path blob = blobs.resolve(name);
            Files.move(file, blob);
            Path link = snapshot.resolve(checkpoint.relativize(file).toString());
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, link.getParent().relativize(blob));
        }
        return snapshot;
    }

    /** The blob the snapshot's {@code file} links to. */
    public static Path blob(Path snapshot, String file) throws IOException {
        return snapshot.resolve(file).toRealPath();
    }
}
