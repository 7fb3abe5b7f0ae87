package io.weightstore.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A snapshot in the Hugging Face hub's download cache, {@code <cache>/models--ORG--NAME/snapshots/COMMIT}:
 * what {@code huggingface-cli download} and every engine that downloads through {@code huggingface_hub}
 * leave on disk. Its files are links into the repository's {@code blobs}, each blob stored once for
 * every snapshot that has it, and a weight file's blob is named by its SHA-256 (the Git LFS object id).
 *
 * @param blobs the real path of the repository's {@code blobs} directory, where the snapshot's links may lead
 * @param modelId the repository id: the hub spells {@code /} as {@code --} in the directory's name, and
 *     refuses {@code --} inside an id, so the name reads back unambiguously
 * @param commit the snapshot's directory name, the commit it was downloaded at
 */
public record HubCacheSnapshot(Path blobs, String modelId, String commit) {
    private static final String MODELS = "models--";
    private static final Pattern SHA256_NAME = Pattern.compile("[0-9a-f]{64}");
    private static final Pattern COMMIT_NAME = Pattern.compile("[0-9a-f]{40}");

    /** The snapshot {@code realRoot} is, when it is one: {@code realRoot} must have no link left in it. */
    public static Optional<HubCacheSnapshot> of(Path realRoot) throws IOException {
        Path snapshots = realRoot.getParent();
        Path repository = snapshots == null ? null : snapshots.getParent();
        if (repository == null || repository.getFileName() == null || !snapshots.getFileName().toString().equals("snapshots")) {
            return Optional.empty();
        }
        String name = repository.getFileName().toString();
        Path blobs = repository.resolve("blobs");
        if (!name.startsWith(MODELS) || name.length() == MODELS.length() || !Files.isDirectory(blobs)) {
            return Optional.empty();
        }
        return Optional.of(new HubCacheSnapshot(blobs.toRealPath(), name.substring(MODELS.length()).replace("--", "/"),
                realRoot.getFileName().toString()));
    }

    /**
     * Refuses a hub cache repository given whole: its walk would meet every blob and every snapshot's links to them, and
     * store the weights once as blobs and once more per snapshot. Names the snapshot {@code refs/main} points to.
     */
    static void requireNoRepository(Path realRoot) throws IOException {
        Path name = realRoot.getFileName();
        Path snapshots = realRoot.resolve("snapshots");
        if (name == null || !name.toString().startsWith(MODELS) || !Files.isDirectory(snapshots)
                || !Files.isDirectory(realRoot.resolve("blobs"))) {
            return;
        }
        Path main = realRoot.resolve("refs").resolve("main");
        String commit = Files.isRegularFile(main) ? Files.readString(main).strip() : "";
        throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, realRoot + " is a Hugging Face hub cache"
                + " repository, not a checkpoint: give one of its snapshots, such as "
                + snapshots.resolve(COMMIT_NAME.matcher(commit).matches() ? commit : "COMMIT"));
    }

    /** Whether {@code realTarget}, a link's target with no link left in it, is a blob of this repository. */
    public boolean holds(Path realTarget) {
        return realTarget.startsWith(blobs) && !realTarget.equals(blobs);
    }

    /**
     * The SHA-256 that {@code realTarget}'s name says its bytes have: for a blob named by one (a Git
     * LFS file, such as every safetensors file); a small file's blob is named by its Git object id,
     * which is no SHA-256 of its bytes alone, and gives none.
     */
    public Optional<String> namedSha256(Path realTarget) {
        String name = realTarget.getFileName().toString();
        return blobs.equals(realTarget.getParent()) && SHA256_NAME.matcher(name).matches() ? Optional.of(name) : Optional.empty();
    }
}
