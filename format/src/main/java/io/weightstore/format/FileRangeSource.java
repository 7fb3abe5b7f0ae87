package io.weightstore.format;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A {@link ByteRangeSource} over a local file, read with positional reads. */
public final class FileRangeSource implements ByteRangeSource, AutoCloseable {
    private final FileChannel channel;
    private final Path path;

    private FileRangeSource(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    public static FileRangeSource open(Path path) throws IOException {
        // Linux opens a directory for reading, and only the first read fails, with no path in the message.
        if (Files.isDirectory(path)) {
            throw new FileSystemException(path.toString(), null, "is a directory, not a file");
        }
        return new FileRangeSource(path, FileChannel.open(path, StandardOpenOption.READ));
    }

    @Override
    public long length() throws IOException {
        return channel.size();
    }

    @Override
    public void readFully(long offset, ByteBuffer dst) throws IOException {
        long position = offset;
        while (dst.hasRemaining()) {
            int n = channel.read(dst, position);
            if (n < 0) {
                throw new EOFException("read past end of " + path + ": offset=" + position + " length=" + channel.size());
            }
            position += n;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
