package io.weightstore.store.embedded;

import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One process at a time holds an embedded store: an OS file lock on {@code LOCK}, whose content
 * names the holder (pid, what it is, since when) for the error the next process gets. What it is
 * comes from {@link EmbeddedStore#HOLDER_PROPERTY}, else the program's file name, never its
 * arguments: they may hold a secret (serve's --api-key), and the file and the error are for anyone.
 */
final class HolderLock implements AutoCloseable {
    static final String FILE = "LOCK";

    private final FileChannel channel;
    private final FileLock lock;

    private HolderLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static HolderLock acquire(Path dir) throws StoreException {
        Path file = dir.resolve(FILE);
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                String holder = Files.readString(file).strip();
                channel.close();
                throw new StoreException(StoreException.Code.HELD, "embedded store " + dir + " is in use by "
                        + (holder.isEmpty() ? "another process" : holder)
                        + "; wait for it to finish, or run a master and nodes to share a store between processes");
            }
            String holder = "pid " + ProcessHandle.current().pid() + " (" + holderName() + ") since " + Instant.now();
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holder.getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            return new HolderLock(channel, lock);
        } catch (IOException e) {
            if (e instanceof StoreException store) {
                throw store;
            }
            try {
                if (channel != null) {
                    channel.close();
                }
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new StoreException(StoreException.Code.IO, "cannot lock embedded store " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String holderName() {
        String named = System.getProperty(EmbeddedStore.HOLDER_PROPERTY);
        if (named != null) {
            return named;
        }
        return ProcessHandle.current().info().command().map(command -> Path.of(command).getFileName().toString())
                .orElse("a process that does not say what it is");
    }

    @Override
    public void close() throws IOException {
        channel.truncate(0);
        lock.release();
        channel.close();
    }
}
