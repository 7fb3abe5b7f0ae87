package io.weightstore.format;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

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
    private static final Pattern SHA256_NAME = Pattern.compile("[0-9a-f]{64}");

    /** The snapshot {@code realRoot} is, when it is one: {@code realRoot} must have no link left in it. */
    public static Optional<HubCacheSnapshot> of(Path realRoot) throws IOException {
        Path snapshots = realRoot.getParent();
        Path repository = snapshots == null ? null : snapshots.getParent();
        if (repository == null || !snapshots.getFileName().toString().equals("snapshots")
                || !HubCacheRepository.isRepository(repository)) {
            return Optional.empty();
        }
        Path cache = repository.getParent() == null ? repository.getRoot() : repository.getParent();
        return Optional.of(new HubCacheSnapshot(cache, repository.resolve("blobs").toRealPath(),
                HubCacheRepository.modelId(repository), realRoot.getFileName().toString()));
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
        return named(realTarget, SHA256_NAME);
    }

    /**
     * The Git object id that {@code realTarget}'s name says its bytes have as a Git blob: for a file
     * the hub keeps in Git itself rather than in LFS (config, tokenizer and other small files), whose
     * blob the hub names by that id.
     */
    public Optional<String> namedGitBlob(Path realTarget) {
        return named(realTarget, HubCacheRepository.GIT_OBJECT_NAME);
    }

    private Optional<String> named(Path realTarget, Pattern digest) {
        return holds(realTarget) && digest.matcher(realTarget.getFileName().toString()).matches()
                ? Optional.of(realTarget.getFileName().toString()) : Optional.empty();
    }
}
