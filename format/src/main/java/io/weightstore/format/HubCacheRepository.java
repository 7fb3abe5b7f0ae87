package io.weightstore.format;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
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
    /** A Git object id: a commit's, or a small file's blob in the cache. */
    static final Pattern GIT_OBJECT_NAME = Pattern.compile("[0-9a-f]{40}");
    /** A ref's or a commit's name: relative, '/' between parts ({@code pr/1}); parts of dots alone are refused apart. */
    private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*");
    /** A ref holds a commit's id and a newline; anything larger is no ref. */
    private static final int MAX_REF_BYTES = 256;

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
     * @throws IllegalArgumentException when {@code revision} is no name of a ref or commit, or the repository has none of it
     * @throws SafetensorsFormatException when the ref names a commit whose snapshot is not a directory of the repository
     */
    public static Optional<Path> snapshotOf(Path realRepository, String revision) throws IOException {
        if (!isRepository(realRepository)) {
            return Optional.empty();
        }
        String wanted = revision == null ? "main" : revision;
        if (!REVISION.matcher(wanted).matches() || Arrays.stream(wanted.split("/")).anyMatch(part -> part.matches("\\.+"))) {
            throw new IllegalArgumentException("revision '" + wanted + "' is no name of a ref or a commit (such as main, pr/1 or a"
                    + " commit's 40 hex digits)");
        }
        Path refs = realRepository.resolve("refs");
        Path snapshots = realRepository.resolve("snapshots");
        Path ref = refs.resolve(wanted);
        String commit;
        if (Files.isRegularFile(ref, LinkOption.NOFOLLOW_LINKS) && Files.size(ref) <= MAX_REF_BYTES) {
            commit = Files.readString(ref).strip();
        } else if (!wanted.contains("/") && Files.exists(snapshots.resolve(wanted), LinkOption.NOFOLLOW_LINKS)) {
            commit = wanted;
        } else {
            throw new IllegalArgumentException("Hugging Face hub cache repository " + realRepository + " has no revision '" + wanted
                    + "': no refs/" + wanted + " and no snapshots/" + wanted + " (refs: " + refNames(refs) + "; snapshots: "
                    + snapshotNames(snapshots) + ")");
        }
        if (!GIT_OBJECT_NAME.matcher(commit).matches() && !commit.equals(wanted)) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, "refs/" + wanted + " of " + realRepository
                    + " holds no commit id (40 hex digits)");
        }
        // A snapshot is a directory of the repository itself: one that is a link elsewhere would be read as no snapshot at all.
        Path snapshot = snapshots.resolve(commit);
        if (!Files.isDirectory(snapshot, LinkOption.NOFOLLOW_LINKS)) {
            throw new SafetensorsFormatException(SafetensorsFormatException.Rule.DIRECTORY, "revision '" + wanted + "' of "
                    + realRepository + " is commit '" + commit + "', which has no snapshot directory in it (snapshots: "
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
