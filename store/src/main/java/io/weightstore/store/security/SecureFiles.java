package io.weightstore.store.security;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Files and directories with the permissions they need from the moment they exist: a key is created 0600 and a
 * directory 0700 by the system call that creates it, so there is no window in which either is open to others,
 * whatever the umask.
 */
final class SecureFiles {
    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> WORLD_READABLE = PosixFilePermissions.fromString("rw-r--r--");
    private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private SecureFiles() {}

    /**
     * Creates {@code dir} and any missing parents as 0700. A directory that already exists keeps its mode: it
     * may be the caller's own (a home directory), and the keys inside are 0600 anyway.
     */
    static void createPrivateDirectories(Path dir) throws IOException {
        Files.createDirectories(dir, PRIVATE_DIRECTORY);
    }

    /**
     * Writes {@code content} to {@code file} with {@code permissions}, never showing a partial file: it goes to a
     * temporary file in the same directory first (created with those permissions), then is renamed into place.
     * Without {@code replace}, an existing file is left alone and the write fails.
     */
    static void write(Path file, byte[] content, Set<PosixFilePermission> permissions, boolean replace)
            throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path temporary = Files.createTempFile(dir, "." + file.getFileName(), ".tmp",
                PosixFilePermissions.asFileAttribute(permissions));
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            if (replace) {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.move(temporary, file);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * Reads a private key file, refusing one that group or others can read: a key that was exposed must be
     * replaced, not used, and saying so early beats a leak found later.
     */
    static byte[] readPrivate(Path file) throws IOException {
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
        for (PosixFilePermission p : mode) {
            if (!p.name().startsWith("OWNER_")) {
                throw new IOException(file + " is open to group or others (mode " + PosixFilePermissions.toString(mode)
                        + "); a private key must be 0600: chmod 600 it, or issue a new one if others may have read it");
            }
        }
        return Files.readAllBytes(file);
    }
}

