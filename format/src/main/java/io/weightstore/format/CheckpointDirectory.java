package io.weightstore.format;

import static io.weightstore.format.SafetensorsFormatException.Rule;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A checkpoint in Hugging Face layout on local disk, read and validated as a whole: every safetensors
 * header parses and matches its file, the index names only files that exist, every tensor it
 * names is in the file it points to, and a config.json is a JSON object. Entries whose name starts with '.' (such as a download tool's
 * {@code .cache/}) are not part of the checkpoint. A symlink may lead to a regular file inside the
 * directory, or, when the directory is a {@link HubCacheSnapshot}, to a blob of its repository.
 *
 * @param root the directory as it was given
 * @param fileRoots the directories every file's {@link CheckpointFile#location} lies under, as they were
 *     when the read began: the root as it really is, and a hub cache snapshot's blobs
 */
public record CheckpointDirectory(Path root, List<ValidatedDirectory> fileRoots, List<CheckpointFile> files,
        Optional<WeightIndex> index, Optional<HubCacheSnapshot> hubSnapshot, List<String> excluded) {
    public CheckpointDirectory {
        fileRoots = List.copyOf(fileRoots);
        files = List.copyOf(files);
        excluded = List.copyOf(excluded);
    }

    public static CheckpointDirectory read(Path root) throws IOException {
        return read(root, ExcludedFiles.NONE);
    }

    /** As {@link #read(Path)}, leaving out the files {@code exclusion} names: neither read nor validated, listed in {@link #excluded}. */
    public static CheckpointDirectory read(Path root, ExcludedFiles exclusion) throws IOException {
        if (!Files.isDirectory(root)) {
            throw new SafetensorsFormatException(Rule.DIRECTORY, "not a directory: " + root);
        }
        // Walked from where the root really is: a walk started at a symlink to a directory sees the link, not the files.
        Path realRoot = root.toRealPath();
        List<ValidatedDirectory> fileRoots = new ArrayList<>(List.of(ValidatedDirectory.of(realRoot)));
        HubCacheRepository.requireNoCacheAbove(realRoot);
        Optional<HubCacheSnapshot> hub = HubCacheSnapshot.of(realRoot);
        if (hub.isPresent()) {
            fileRoots.add(ValidatedDirectory.of(hub.get().blobs()));
        }
        List<CheckpointFile> files = new ArrayList<>();
        List<String> excluded = new ArrayList<>();
        Optional<Path> indexFile = Optional.empty();
        for (Path path : listFiles(realRoot)) {
            String relative = relativeName(realRoot, path);
            // Matched on the path as listed: a name this locale cannot spell is refused below, unless it is left out.
            if (exclusion.excludes(realRoot.relativize(path))) {
                excluded.add(relative);
                continue;
            }
            requireNameRoundTrips(realRoot, path, relative);
            Path target = path;
            if (Files.isSymbolicLink(path)) {
                try {
                    target = path.toRealPath();
                } catch (NoSuchFileException e) {
                    throw new SafetensorsFormatException(Rule.DIRECTORY, "symlink " + relative + " points to "
                            + Files.readSymbolicLink(path) + ", which does not exist");
                }
                Path resolved = target;
                boolean inside = target.startsWith(realRoot) || hub.filter(h -> h.holds(resolved)).isPresent();
                if (!inside || !Files.isRegularFile(target)) {
                    throw new SafetensorsFormatException(Rule.DIRECTORY, "symlink " + relative + " points to " + target
                            + ", which is not a regular file inside " + realRoot + hub.map(h -> " or " + h.blobs()).orElse(""));
                }
            }
            long size = Files.size(target);
            Optional<SafetensorsHeader> header = Optional.empty();
            if (FileKind.isSafetensors(relative)) {
                header = Optional.of(readHeader(target, relative));
            }
            files.add(new CheckpointFile(relative, size, FileKind.of(relative), header, target));
            if (relative.equals(WeightIndex.FILE_NAME)) {
                indexFile = Optional.of(target);
            }
            if (relative.equals(ModelConfig.FILE_NAME)) {
                ModelConfig.check(target);
            }
        }
        requireEachTensorInOneFile(files);
        // Only a regular file the walk took: a pipe or a device of that name would block the read, or never end it.
        Optional<WeightIndex> index = Optional.empty();
        if (indexFile.isPresent()) {
            WeightIndex weightIndex = WeightIndex.read(indexFile.get());
            checkIndex(weightIndex, files, excluded);
            index = Optional.of(weightIndex);
        }
        return new CheckpointDirectory(root, fileRoots, files, index, hub, excluded);
    }

    /**
     * A file is stored, and later opened again, by its name as text: a name that is not valid UTF-8,
     * or that this system's locale cannot spell, would pass here and then not be found mid-import.
     */
    private static void requireNameRoundTrips(Path root, Path path, String relative) throws SafetensorsFormatException {
        boolean same;
        try {
            same = root.resolve(relative).equals(path);
        } catch (InvalidPathException e) {
            same = false;
        }
        if (!same) {
            throw new SafetensorsFormatException(Rule.DIRECTORY, "file name " + relative + " cannot be read back as the same name (it is"
                    + " not valid UTF-8, or this system's locale, LANG, cannot spell it): rename it, or run with a UTF-8 locale");
        }
    }

    /**
     * The SHA-256 that {@code file}'s bytes must have, when the directory is a hub cache snapshot and the
     * file's blob is named by one: an import that hashes other bytes read a corrupt or altered download.
     */
    public Optional<String> namedSha256(CheckpointFile file) {
        return hubSnapshot.flatMap(h -> h.namedSha256(file.location()));
    }

    /** The Git blob id that {@code file}'s bytes must have, when its hub cache blob is named by one (see {@link HubCacheSnapshot#namedGitBlob}). */
    public Optional<String> namedGitBlob(CheckpointFile file) {
        return hubSnapshot.flatMap(h -> h.namedGitBlob(file.location()));
    }

    public long totalBytes() {
        return files.stream().mapToLong(CheckpointFile::size).sum();
    }

    public List<CheckpointFile> files(FileKind kind) {
        return files.stream().filter(f -> f.kind() == kind).toList();
    }

    private static List<Path> listFiles(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> !p.equals(root))
                    .filter(p -> !hidden(root, p))
                    .filter(p -> Files.isSymbolicLink(p) || Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
                    .sorted(Comparator.comparing(p -> relativeName(root, p)))
                    .toList();
        }
    }

    private static boolean hidden(Path root, Path path) {
        for (Path part : root.relativize(path)) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static String relativeName(Path root, Path path) {
        return root.relativize(path).toString().replace(path.getFileSystem().getSeparator(), "/");
    }

    private static SafetensorsHeader readHeader(Path file, String relative) throws IOException {
        try (FileRangeSource source = FileRangeSource.open(file)) {
            return SafetensorsHeaderParser.read(source);
        } catch (SafetensorsFormatException e) {
            throw e.inFile(relative);
        }
    }

    /**
     * A loader finds a tensor by its name: one named in two safetensors files would be read from
     * whichever it met last, which an engine reading by the index would not.
     */
    private static void requireEachTensorInOneFile(List<CheckpointFile> files) throws SafetensorsFormatException {
        Map<String, String> fileOf = new HashMap<>();
        for (CheckpointFile file : files) {
            if (file.header().isEmpty()) {
                continue;
            }
            for (String tensor : file.header().get().tensorsByName().keySet()) {
                String first = fileOf.putIfAbsent(tensor, file.path());
                if (first != null) {
                    throw new SafetensorsFormatException(Rule.DUPLICATE_KEY, tensor, "found in both '" + first + "' and '" + file.path()
                            + "'; a checkpoint names each tensor once");
                }
            }
        }
    }

    private static void checkIndex(WeightIndex index, List<CheckpointFile> files, List<String> excluded)
            throws SafetensorsFormatException {
        Map<String, Map<String, TensorInfo>> tensorsByFile = new HashMap<>();
        for (CheckpointFile file : files) {
            file.header().ifPresent(h -> tensorsByFile.put(file.path(), h.tensorsByName()));
        }
        for (Map.Entry<String, String> entry : index.weightMap().entrySet()) {
            Map<String, TensorInfo> tensors = tensorsByFile.get(entry.getValue());
            if (tensors == null) {
                throw new SafetensorsFormatException(Rule.INDEX, entry.getKey(), WeightIndex.FILE_NAME
                        + " names file '" + entry.getValue() + "', which is not a safetensors file of the checkpoint"
                        + (excluded.contains(entry.getValue()) ? " (it is excluded: an engine reading the index would not find it)" : ""));
            }
            if (!tensors.containsKey(entry.getKey())) {
                throw new SafetensorsFormatException(Rule.INDEX, entry.getKey(), WeightIndex.FILE_NAME
                        + " places the tensor in '" + entry.getValue() + "', which does not contain it");
            }
        }
    }
}
