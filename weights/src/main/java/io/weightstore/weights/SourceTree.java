package io.weightstore.weights;

import io.weightstore.format.ValidatedDirectory;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkpoint's source directories, opened once and checked to be the ones validation read, from
 * which its files are opened again at the real paths validation found, without following a link
 * anywhere below them: each directory on the way is opened from the one above it, refusing a link.
 * Opened by its path, a file would be reached through any directory on that path that was replaced by
 * a link since it was validated (a {@code config.json} read from wherever the link leads, stored, and
 * served as the checkpoint's). A file's size and modification time are read the same way.
 *
 * <p>Where the platform offers no {@link SecureDirectoryStream}, files are opened by their paths,
 * refusing a link in the last step only, and a warning says so.
 */
final class SourceTree implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SourceTree.class);
    private static final Set<OpenOption> READ_NO_LINK = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    /** A file opened from the tree, and its attributes as it was opened (see {@link #open}). */
    record Opened(FileChannel channel, BasicFileAttributes attributes) {}

    private record Root(Path path, SecureDirectoryStream<Path> directory) {}

    @FunctionalInterface
    private interface AtParent<T> {
        T apply(SecureDirectoryStream<Path> parent, Path name) throws IOException;
    }

    private final List<Root> roots;
    private final boolean secure;

    private SourceTree(List<Root> roots, boolean secure) {
        this.roots = roots;
        this.secure = secure;
    }

    /**
     * Opens {@code validated}, directories none of which lies inside another.
     *
     * @throws CheckpointException CHANGED when one is not the directory validation read
     */
    static SourceTree open(List<ValidatedDirectory> validated) throws IOException {
        List<Root> opened = new ArrayList<>();
        try {
            for (ValidatedDirectory root : validated) {
                DirectoryStream<Path> directory = Files.newDirectoryStream(root.realPath());
                if (!(directory instanceof SecureDirectoryStream<Path> secure)) {
                    directory.close();
                    closeAll(opened.stream().map(Root::directory).toList());
                    return insecure(validated);
                }
                opened.add(new Root(root.realPath(), secure));
                requireSame(root, secure.getFileAttributeView(BasicFileAttributeView.class).readAttributes());
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

    /** Where directories cannot be opened securely: each checked by its path, and files opened by theirs. */
    private static SourceTree insecure(List<ValidatedDirectory> validated) throws IOException {
        log.warn("this platform opens no directory securely: the import opens its files by their paths, and would follow a directory"
                + " replaced by a link while it runs");
        for (ValidatedDirectory root : validated) {
            requireSame(root, Files.readAttributes(root.realPath(), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        }
        return new SourceTree(List.of(), false);
    }

    private static void requireSame(ValidatedDirectory root, BasicFileAttributes now) throws CheckpointException {
        if (!Objects.equals(now.fileKey(), root.fileKey())) {
            throw new CheckpointException(CheckpointException.Code.CHANGED, "the source changed during the import: " + root.realPath()
                    + " is not the directory the import read (moved, or replaced by another or a link)");
        }
    }

    /**
     * The file {@code name} at {@code realPath}, open for reading, with its attributes read just before
     * it was opened and found the same file's just after (by name: no attribute is read from an open file).
     *
     * @throws CheckpointException CHANGED, naming {@code name}, when a link now stands at a step of the way,
     *     or the file was replaced while it was opened
     */
    Opened open(String name, Path realPath) throws IOException {
        if (!secure) {
            return opened(name, Files.readAttributes(realPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS),
                    FileChannel.open(realPath, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS),
                    () -> Files.readAttributes(realPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        }
        return atParent(name, realPath, (parent, file) -> opened(name, attributes(parent, file),
                // The JDK's secure directory streams open files as FileChannels; the interface only promises a byte channel.
                (FileChannel) parent.newByteChannel(file, READ_NO_LINK), () -> attributes(parent, file)));
    }

    @FunctionalInterface
    interface Attributes {
        BasicFileAttributes read() throws IOException;
    }

    /** {@code channel} with {@code before}, once {@code after} says the name still leads to the same file; else closed. */
    static Opened opened(String name, BasicFileAttributes before, FileChannel channel, Attributes after) throws IOException {
        try {
            if (!Objects.equals(after.read().fileKey(), before.fileKey())) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, name + " changed during the import: it was replaced"
                        + " by another file while it was opened");
            }
            return new Opened(channel, before);
        } catch (IOException | RuntimeException e) {
            try {
                channel.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /** The attributes of the file {@code name} at {@code realPath} now, reached as {@link #open} reaches it. */
    BasicFileAttributes attributes(String name, Path realPath) throws IOException {
        if (!secure) {
            return Files.readAttributes(realPath, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }
        return atParent(name, realPath, SourceTree::attributes);
    }

    private static BasicFileAttributes attributes(SecureDirectoryStream<Path> parent, Path file) throws IOException {
        return parent.getFileAttributeView(file, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    }

    /** What {@code action} gives on the last step of {@code realPath}, in its directory, opened step by step from its root. */
    private <T> T atParent(String name, Path realPath, AtParent<T> action) throws IOException {
        Root root = roots.stream().filter(r -> realPath.startsWith(r.path())).findFirst()
                .orElseThrow(() -> new IllegalStateException(realPath + " lies under none of " + roots.stream().map(Root::path).toList()));
        Path relative = root.path().relativize(realPath);
        List<SecureDirectoryStream<Path>> below = new ArrayList<>();
        Path at = root.path();
        try {
            SecureDirectoryStream<Path> directory = root.directory();
            for (int step = 0; step < relative.getNameCount() - 1; step++) {
                at = at.resolve(relative.getName(step));
                directory = directory.newDirectoryStream(relative.getName(step), LinkOption.NOFOLLOW_LINKS);
                below.add(directory);
            }
            at = realPath;
            return action.apply(directory, relative.getFileName());
        } catch (FileSystemException e) {
            Path link = linkOnTheWay(root.path(), relative);
            if (link != null) {
                throw new CheckpointException(CheckpointException.Code.CHANGED, name + " changed during the import: " + link
                        + " is a link now, where the import found no link", e);
            }
            // The JDK names only the step it was given, a name relative to the directory above it; the type says what went wrong.
            FileSystemException named = switch (e) {
                case NoSuchFileException gone -> new NoSuchFileException(at.toString(), gone.getOtherFile(), gone.getReason());
                case AccessDeniedException denied -> new AccessDeniedException(at.toString(), denied.getOtherFile(), denied.getReason());
                case NotDirectoryException notDirectory -> new NotDirectoryException(at.toString());
                default -> new FileSystemException(at.toString(), e.getOtherFile(), e.getReason());
            };
            throw (FileSystemException) named.initCause(e);
        } finally {
            // Read-only directories: a failure to close one loses nothing, and must not lose the channel opened in it.
            for (SecureDirectoryStream<Path> directory : below) {
                try {
                    directory.close();
                } catch (IOException e) {
                    log.debug("closing a directory of the source failed", e);
                }
            }
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

    /** Logs rather than throws: a read-only directory's close loses nothing, and must not fail an import that is READY. */
    @Override
    public void close() {
        try {
            closeAll(roots.stream().map(Root::directory).toList());
        } catch (IOException e) {
            log.warn("closing the source's directories failed", e);
        }
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
