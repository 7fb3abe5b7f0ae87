package io.weightstore.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A snapshot in the Hugging Face hub's download cache, {@code CACHE/models--ORG--NAME/snapshots/COMMIT}:
 * what {@code hf download} (formerly {@code huggingface-cli download}) and every engine that downloads
 * through {@code huggingface_hub} leave on disk. Its files are links into the repository's {@code blobs},
 * each blob stored once for every snapshot that has it, and a weight file's blob is named by its SHA-256
 * (the Git LFS object id).
 *
 * @param cache the real path of the cache directory that holds the repository
 * @param blobs the real path of the repository's {@code blobs} directory, where the snapshot's links may lead
 * @param modelId the repository id: the hub spells {@code /} as {@code --} in the directory's name, and
 *     refuses {@code --} inside an id, so the name reads back unambiguously
 * @param commit the snapshot's directory name, the commit it was downloaded at
 */
public record HubCacheSnapshot(Path cache, Path blobs, String modelId, String commit) {
    private static final String MODELS = "models--";
    private static final Pattern SHA256_NAME = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern GIT_OBJECT_NAME = Pattern.compile("[0-9a-f]{40}");

    /** The snapshot {@code realRoot} is, when it is one: {@code realRoot} must have no link left in it. */
    public static Optional<HubCacheSnapshot> of(Path realRoot) throws IOException {
        Path snapshots = realRoot.getParent();
        Path repository = snapshots == null ? null : snapshots.getParent();
        if (repository == null || !snapshots.getFileName().toString().equals("snapshots") || !isRepository(repository)) {
            return Optional.empty();
        }
        Path cache = repository.getParent() == null ? repository.getRoot() : repository.getParent();
        return Optional.of(new HubCacheSnapshot(cache, repository.resolve("blobs").toRealPath(),
                repository.getFileName().toString().substring(MODELS.length()).replace("--", "/"), realRoot.getFileName().toString()));
    }

    /**
     * Refuses a hub cache repository given whole, or the cache that holds repositories: its walk would meet every blob and
     * every snapshot's links to them, and store the weights once as blobs and once more per snapshot. Names a snapshot to
     * give instead: the one {@code refs/main} points to.
     */
    public static void requireNoCacheAbove(Path realRoot) throws IOException {
        if (isRepository(realRoot)) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, realRoot + " is a Hugging Face hub cache"
                    + " repository, not a checkpoint: give one of its snapshots, such as " + mainSnapshot(realRoot));
        }
        Optional<Path> held;
        try (Stream<Path> children = Files.list(realRoot)) {
            held = children.filter(HubCacheSnapshot::isRepository).sorted().findFirst();
        }
        if (held.isPresent()) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, realRoot + " is a Hugging Face hub cache,"
                    + " not a checkpoint: give a snapshot of one of its repositories, such as " + mainSnapshot(held.get()));
        }
    }

    private static boolean isRepository(Path dir) {
        Path name = dir.getFileName();
        return name != null && name.toString().startsWith(MODELS) && name.toString().length() > MODELS.length()
                && Files.isDirectory(dir.resolve("snapshots")) && Files.isDirectory(dir.resolve("blobs"));
    }

    private static Path mainSnapshot(Path repository) throws IOException {
        Path main = repository.resolve("refs").resolve("main");
        String commit = Files.isRegularFile(main) ? Files.readString(main).strip() : "";
        return repository.resolve("snapshots").resolve(GIT_OBJECT_NAME.matcher(commit).matches() ? commit : "COMMIT");
    }

    /** Whether {@code realTarget}, a link's target with no link left in it, is a blob of this repository; blobs lie flat. */
    public boolean holds(Path realTarget) {
        return blobs.equals(realTarget.getParent());
    }

    /**
     * The SHA-256 that {@code realTarget}'s name says its bytes have: for a blob named by one (a Git
     * LFS file, such as every safetensors file); a small file's blob is named by its Git object id,
     * which is no SHA-256 of its bytes alone, and gives none.
     */
    public Optional<String> namedSha256(Path realTarget) {
        return holds(realTarget) && SHA256_NAME.matcher(realTarget.getFileName().toString()).matches()
                ? Optional.of(realTarget.getFileName().toString()) : Optional.empty();
    }
}
