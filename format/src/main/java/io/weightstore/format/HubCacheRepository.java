package io.weightstore.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A repository in the Hugging Face hub's download cache, {@code CACHE/models--ORG--NAME}: its {@code blobs},
 * one directory of links per downloaded commit under {@code snapshots/}, and under {@code refs/} the commit
 * each ref (a branch, a tag, {@code pr/N}) was at when it was downloaded. A checkpoint is one snapshot
 * ({@link HubCacheSnapshot}); the repository names which.
 */
public final class HubCacheRepository {
    private static final String MODELS = "models--";
    private static final Pattern GIT_OBJECT_NAME = Pattern.compile("[0-9a-f]{40}");

    private HubCacheRepository() {}

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
            held = children.filter(HubCacheRepository::isRepository).sorted().findFirst();
        }
        if (held.isPresent()) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, realRoot + " is a Hugging Face hub cache,"
                    + " not a checkpoint: give a snapshot of one of its repositories, such as " + mainSnapshot(held.get()));
        }
    }

    /**
     * The snapshot of {@code realRepository} that {@code revision} names, when that is a hub cache repository: a ref
     * under {@code refs/} ({@code main} when none is given; a pull request's is {@code refs/pr/N}), or a commit
     * downloaded under {@code snapshots/}. Empty for any other directory.
     *
     * @throws SafetensorsFormatException when the repository has no such revision, or its snapshot was not downloaded
     */
    public static Optional<Path> snapshotOf(Path realRepository, String revision) throws IOException {
        if (!isRepository(realRepository)) {
            return Optional.empty();
        }
        String wanted = revision == null ? "main" : revision;
        Path refs = realRepository.resolve("refs");
        Path snapshots = realRepository.resolve("snapshots");
        Path ref = refs.resolve(wanted).normalize();
        Path commit = snapshots.resolve(wanted).normalize();
        String named;
        if (ref.startsWith(refs) && Files.isRegularFile(ref)) {
            named = Files.readString(ref).strip();
        } else if (commit.getParent().equals(snapshots) && Files.isDirectory(commit)) {
            named = wanted;
        } else {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, "Hugging Face hub cache repository "
                    + realRepository + " has no revision '" + wanted + "': no refs/" + wanted + " and no snapshots/" + wanted
                    + " (refs: " + refNames(refs) + "; snapshots: " + snapshotNames(snapshots) + ")");
        }
        Path snapshot = snapshots.resolve(named).normalize();
        if (!snapshot.getParent().equals(snapshots) || !Files.isDirectory(snapshot)) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, "revision '" + wanted + "' of "
                    + realRepository + " is commit '" + named + "', whose snapshot was not downloaded (snapshots: "
                    + snapshotNames(snapshots) + ")");
        }
        return Optional.of(snapshot);
    }

    /** What {@code refs} names, as a revision names it: {@code main}, {@code pr/1}. */
    private static String refNames(Path refs) throws IOException {
        if (!Files.isDirectory(refs)) {
            return "none";
        }
        try (Stream<Path> walk = Files.walk(refs)) {
            return joined(walk.filter(Files::isRegularFile).map(p -> refs.relativize(p).toString()));
        }
    }

    private static String snapshotNames(Path snapshots) throws IOException {
        try (Stream<Path> children = Files.list(snapshots)) {
            return joined(children.map(p -> p.getFileName().toString()));
        }
    }

    private static String joined(Stream<String> names) {
        List<String> sorted = names.sorted().toList();
        return sorted.isEmpty() ? "none" : String.join(", ", sorted);
    }

    static boolean isRepository(Path dir) {
        Path name = dir.getFileName();
        return name != null && name.toString().startsWith(MODELS) && name.toString().length() > MODELS.length()
                && Files.isDirectory(dir.resolve("snapshots")) && Files.isDirectory(dir.resolve("blobs"));
    }

    private static Path mainSnapshot(Path repository) throws IOException {
        Path main = repository.resolve("refs").resolve("main");
        String commit = Files.isRegularFile(main) ? Files.readString(main).strip() : "";
        return repository.resolve("snapshots").resolve(GIT_OBJECT_NAME.matcher(commit).matches() ? commit : "COMMIT");
    }

    /** The repository id its directory's name spells: the hub writes {@code /} as {@code --}, and refuses {@code --} in an id. */
    static String modelId(Path repository) {
        return repository.getFileName().toString().substring(MODELS.length()).replace("--", "/");
    }
}
