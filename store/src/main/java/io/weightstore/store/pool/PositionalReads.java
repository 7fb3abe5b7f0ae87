package io.weightstore.store.pool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Positional reads of a local file that fill a buffer: a put from a file and an import's walk read their source so, and a pool its header. */
public final class PositionalReads {
    private PositionalReads() {}

    /**
     * Reads the file's bytes from {@code position} into {@code dst}, from its position on, until it is
     * full or the file ends; whether it filled. When short, the file ended {@code dst.position()} bytes
     * past {@code position} for a buffer that started at position 0.
     */
    public static boolean fill(FileChannel file, long position, ByteBuffer dst) throws IOException {
        for (long at = position; dst.hasRemaining(); ) {
            int read = file.read(dst, at);
            if (read < 0) {
                return false;
            }
            at += read;
        }
        return true;
    }
}
