package io.weightstore.weights;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/** Writing stored files to the local disk: only inside the directory asked for, and never half-visible. */
final class LocalFiles {
    /** Fills the mapped bytes of a file being written. */
    @FunctionalInterface
    interface Filler {
        void fill(MemorySegment file) throws IOException;
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private LocalFiles() {}

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
        long usable = Files.getFileStore(parent).getUsableSpace();
        if (usable < size) {
            throw new CheckpointException(CheckpointException.Code.NO_SPACE, "writing " + target + ": its file system has " + usable
                    + " bytes free, the file needs " + size);
        }
        // Hidden, so that a directory holding one a crash left is still read as a checkpoint without it.
        Path partial = parent.resolve("." + target.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".partial");
        try {
            try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
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
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(partial);
        }
    }
}
