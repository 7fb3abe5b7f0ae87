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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One process at a time holds an embedded store: an OS file lock on {@code LOCK}, whose content
 * names the holder (pid, what it is, since when) for the error the next process gets. What it is
 * comes from {@link EmbeddedStore#HOLDER_PROPERTY}, else the program's file name, never its
 * arguments: they may hold a secret (serve's --api-key), and the file and the error are for anyone.
 */
final class HolderLock implements AutoCloseable {
    static final String FILE = "LOCK";
    /**
     * The stores this process holds, by their lock file's real path, with who holds them. The OS lock is
     * the process's, and closing any descriptor of its file ends it (POSIX record locks): a second open
     * in this process must be refused before it opens one, or its failure would free the store for others.
     */
    private static final Map<Path, String> HELD_HERE = new ConcurrentHashMap<>();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private HolderLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    static HolderLock acquire(Path dir) throws StoreException {
        Path file = dir.resolve(FILE);
        Path key;
        try {
            Files.createDirectories(dir);
            key = dir.toRealPath().resolve(FILE);
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot lock embedded store " + dir + ": " + e.getMessage(), e);
        }
        String holder = "pid " + ProcessHandle.current().pid() + " (" + holderName() + ") since " + Instant.now();
        String heldBy = HELD_HERE.putIfAbsent(key, holder);
        if (heldBy != null) {
            throw held(dir, heldBy + ", this process");
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                // Who holds it, read through this channel: the one descriptor of the file this process opens for it.
                ByteBuffer content = ByteBuffer.allocate((int) Math.min(channel.size(), 4096));
                channel.read(content, 0);
                channel.close();
                HELD_HERE.remove(key);
                String other = new String(content.array(), 0, content.position(), StandardCharsets.UTF_8).strip();
                throw held(dir, other.isEmpty() ? "another process" : other);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(holder.getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            return new HolderLock(key, channel, lock);
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
            HELD_HERE.remove(key);
            throw new StoreException(StoreException.Code.IO, "cannot lock embedded store " + dir + ": " + e.getMessage(), e);
        }
    }

    private static StoreException held(Path dir, String holder) {
        return new StoreException(StoreException.Code.HELD, "embedded store " + dir + " is in use by " + holder
                + "; wait for it to finish, or run a master and nodes to share a store between processes");
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
        try {
            channel.truncate(0);
        } finally {
            try {
                lock.release();
                channel.close();
            } finally {
                HELD_HERE.remove(key);
            }
        }
    }
}
