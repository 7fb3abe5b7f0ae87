package io.weightstore.weights;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * A checkpoint's source directories, opened once, from which its files are opened again at the real
 * paths validation found, without following a link anywhere below them: each directory on the way is
 * opened from the one above it, refusing a link. Opened by its path, a file would be reached through
 * any directory on that path that was replaced by a link since it was validated (a {@code config.json}
 * read from wherever the link leads, stored, and served as the checkpoint's).
 *
 * <p>Where the platform offers no {@link SecureDirectoryStream}, a file is opened by its path, refusing a
 * link in its last step only.
 */
final class SourceTree implements Closeable {
    private static final Set<OpenOption> READ_NO_LINK = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    private record Root(Path path, SecureDirectoryStream<Path> directory) {}

    private final List<Root> roots;
    private final boolean secure;

    private SourceTree(List<Root> roots, boolean secure) {
        this.roots = roots;
        this.secure = secure;
    }

    /** Opens {@code realRoots}, directories with no link in their paths, deepest first so that a file is reached from the nearest. */
    static SourceTree open(List<Path> realRoots) throws IOException {
        List<Root> opened = new ArrayList<>();
        try {
            for (Path root : realRoots.stream().sorted(Comparator.comparingInt(Path::getNameCount).reversed()).toList()) {
                DirectoryStream<Path> directory = Files.newDirectoryStream(root);
                if (!(directory instanceof SecureDirectoryStream<Path> secure)) {
                    directory.close();
                    closeAll(opened.stream().map(Root::directory).toList());
                    return new SourceTree(List.of(), false);
                }
                opened.add(new Root(root, secure));
            }
        } catch (IOException | RuntimeException e) {
            try {
                closeAll(opened.stream().map(Root::directory).toList());
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return new SourceTree(List.copyOf(opened), true);
    }

    /**
     * The file at {@code realPath}, open for reading.
     *
     * @throws CheckpointException CHANGED, naming {@code name}, when a link now stands at a step of the way
     * @throws IllegalArgumentException when {@code realPath} lies under none of the roots
     */
    FileChannel open(String name, Path realPath) throws IOException {
        if (!secure) {
            return FileChannel.open(realPath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        }
        Root root = roots.stream().filter(r -> realPath.startsWith(r.path())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(realPath + " lies under none of " + roots.stream().map(Root::path).toList()));
        Path relative = root.path().relativize(realPath);
        List<SecureDirectoryStream<Path>> below = new ArrayList<>();
        try {
            SecureDirectoryStream<Path> directory = root.directory();
            for (int step = 0; step < relative.getNameCount() - 1; step++) {
                directory = directory.newDirectoryStream(relative.getName(step), LinkOption.NOFOLLOW_LINKS);
                below.add(directory);
            }
            // The JDK's secure directory streams open files as FileChannels; the interface only promises a byte channel.
            return (FileChannel) directory.newByteChannel(relative.getFileName(), READ_NO_LINK);
        } catch (FileSystemException e) {
            Path link = linkOnTheWay(root.path(), relative);
            if (link == null) {
                throw e;
            }
            throw new CheckpointException(CheckpointException.Code.CHANGED, name + " changed during the import: " + link
                    + " is a link now, where the import found no link", e);
        } finally {
            closeAll(below);
        }
    }

    /** The first step of {@code relative} below {@code root} that is a link now, or null. */
    private static Path linkOnTheWay(Path root, Path relative) {
        Path at = root;
        for (Path step : relative) {
            at = at.resolve(step);
            if (Files.isSymbolicLink(at)) {
                return at;
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        closeAll(roots.stream().map(Root::directory).toList());
    }

    private static void closeAll(List<? extends Closeable> opened) throws IOException {
        IOException failure = null;
        for (Closeable closeable : opened) {
            try {
                closeable.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
