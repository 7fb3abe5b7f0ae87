package io.weightstore.weights;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The room a write to the local disk needs, checked before a byte of it goes in, in one wording for every writer. */
public final class FreeSpace {
    private FreeSpace() {}

    /**
     * Refuses writing {@code bytes} to {@code target} when its file system has less usable space. {@code target} need
     * not exist yet: the file system is that of its nearest existing ancestor, so that a refused write creates nothing.
     *
     * @param what what needs the bytes, as the message says it: "the file", "the checkpoint"
     */
    public static void require(Path target, long bytes, String what) throws IOException {
        Path existing = target.toAbsolutePath();
        while (Files.notExists(existing)) {
            existing = existing.getParent();
        }
        long usable = Files.getFileStore(existing).getUsableSpace();
        if (usable < bytes) {
            throw new CheckpointException(CheckpointException.Code.NO_SPACE, "writing " + target + ": its file system has "
                    + usable + " bytes free, " + what + " needs " + bytes);
        }
    }
}
