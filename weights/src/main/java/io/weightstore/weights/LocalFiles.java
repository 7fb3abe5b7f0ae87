package io.weightstore.weights;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Writing stored files to the local disk: only inside the directory asked for, and never half-visible. */
public final class LocalFiles {
    /** Fills the mapped bytes of a file being written. */
    @FunctionalInterface
    interface Filler {
        void fill(MemorySegment file) throws IOException;
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    /** A sibling: the file's name, the writer's process id (digits a long holds), this call's random part. */
    private static final Pattern PARTIAL = Pattern.compile("\\.(.+)\\.(\\d{1,18})\\.[0-9a-z]+\\.partial");

    private LocalFiles() {}

    /**
     * The siblings of {@code name} that a process killed while it wrote them left, found by their writer's
     * process id no longer running on this host (one that runs may still be writing).
     */
    private static void removeThoseOfDeadProcesses(Path dir, String name) throws IOException {
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(dir, p -> p.getFileName().toString().startsWith("." + name + "."))) {
            for (Path sibling : siblings) {
                Matcher partial = PARTIAL.matcher(sibling.getFileName().toString());
                if (partial.matches() && partial.group(1).equals(name)
                        && ProcessHandle.of(Long.parseLong(partial.group(2))).filter(ProcessHandle::isAlive).isEmpty()) {
                    Files.deleteIfExists(sibling);
                }
            }
        }
    }

    /**
     * A hidden sibling of {@code target} to write it under: hidden, so that a directory holding one a crash left is still
     * read as a checkpoint without it; named after this process, so that the next writer of the file can tell it is a
     * crash's and remove it; and with a random part of this call's own.
     */
    private static Path partialOf(Path target) {
        return target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid() + "."
                + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".partial");
    }

    /**
     * Replaces {@code target}, in an existing directory, with {@code text} whole, as {@link #writeAtomically} does but
     * without forcing it to the disk: for a small file that a crash may lose, but must not leave half-written.
     */
    public static void replaceUnsynced(Path target, String text) throws IOException {
        removeThoseOfDeadProcesses(target.toAbsolutePath().getParent(), target.getFileName().toString());
        Path partial = partialOf(target);
        try {
            Files.writeString(partial, text, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** {@code dir/relative}, refused when a manifest path would leave {@code dir}. */
    static Path resolveInside(Path dir, String relative) throws CheckpointException {
        Path root = dir.toAbsolutePath().normalize();
        Path target = root.resolve(relative).normalize();
        if (!target.startsWith(root) || target.equals(root)) {
            throw new CheckpointException(CheckpointException.Code.CORRUPT, "manifest path " + relative + " leaves " + root);
        }
        return target;
    }

    /**
     * Writes {@code size} bytes to {@code target} through a mapping of a {@code .partial} sibling,
     * which is moved into place only once {@code filler} returned: a failure leaves no file behind.
     * The sibling's name is this call's own, created new: two processes writing one file (two loads
     * filling a metadata cache at once) would otherwise truncate each other's mapping, delete each
     * other's sibling, or move one half-filled into place; and a link planted under that name is
     * not followed.
     */
    static void writeAtomically(Path target, long size, Filler filler) throws IOException {
        Path parent = target.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        // A store into a mapping of a sparse file that finds no block left is a fault in the copying thread, not an
        // IOException: refuse a file its file system has no room for before any byte goes in.
        FreeSpace.require(target, size, "the file");
        removeThoseOfDeadProcesses(parent, target.getFileName().toString());
        Path partial = partialOf(target);
        try {
            try (FileChannel channel = named(target, () -> FileChannel.open(partial, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.READ, StandardOpenOption.WRITE));
                    Arena arena = Arena.ofShared()) {
                if (size > 0) {
                    channel.write(ByteBuffer.allocate(1), size - 1);
                    MemorySegment mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                    try {
                        filler.fill(mapped);
                    } catch (InternalError e) {
                        // How the JVM reports a fault in mapped memory: here a page of the output that found no block left,
                        // the disk having filled since the check above. Any other InternalError is not ours to explain.
                        if (e.getMessage() == null || !e.getMessage().contains("unsafe memory access")) {
                            throw e;
                        }
                        throw new CheckpointException(CheckpointException.Code.NO_SPACE, "writing " + target
                                + ": its file system ran out of room while the file was written (" + Files.getFileStore(parent)
                                .getUsableSpace() + " bytes free now)", e);
                    }
                    mapped.force();
                } else {
                    filler.fill(MemorySegment.NULL);
                }
            }
            named(target, () -> Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE));
        } finally {
            Files.deleteIfExists(partial);
        }
    }

    /** A step on the hidden sibling of {@code target}. */
    @FunctionalInterface
    private interface SiblingStep<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code step}, its file system's refusal (permission denied, read-only) named for {@code target}, the file the
     * user asked for: the hidden sibling it was written through is this class's own business.
     */
    private static <T> T named(Path target, SiblingStep<T> step) throws IOException {
        try {
            return step.run();
        } catch (AccessDeniedException e) {
            throw (IOException) new AccessDeniedException(target.toString(), null, e.getReason()).initCause(e);
        } catch (FileSystemException e) {
            throw (IOException) new FileSystemException(target.toString(), null, e.getReason()).initCause(e);
        }
    }
}
