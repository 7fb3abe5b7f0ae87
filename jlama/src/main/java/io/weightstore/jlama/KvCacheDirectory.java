package io.weightstore.jlama;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The directory Jlama keeps a model's key-value cache pages in, owned by one loaded model.
 *
 * <p>Given none, Jlama makes a temporary directory per model and marks it delete-on-exit, which the JVM
 * cannot honour once Jlama's session generation has written pages into it, and which a server that loads
 * models for weeks only honours at exit: directories of page files piled up in the temporary directory.
 * This one is deleted, pages and all, when the model is closed, or when the JVM exits with the model
 * still open (a server stopped by a signal).
 */
final class KvCacheDirectory implements AutoCloseable {
    private final Path dir;
    private final Thread atExit;

    private KvCacheDirectory(Path dir) {
        this.dir = dir;
        this.atExit = Thread.ofPlatform().name("kv-cache-cleanup").unstarted(this::deleteAtExit);
    }

    static KvCacheDirectory create() throws IOException {
        KvCacheDirectory created = new KvCacheDirectory(Files.createTempDirectory("weightstore-kv-"));
        Runtime.getRuntime().addShutdownHook(created.atExit);
        return created;
    }

    File file() {
        return dir.toFile();
    }

    /** Deletes the pages and the directory; call it only once the model that writes them is closed. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(atExit);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is exiting, and the hook is deleting the directory (hooks run at once, not in turn).
            return;
        }
        try {
            delete();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the key-value cache directory " + dir, e);
        }
    }

    private void deleteAtExit() {
        try {
            delete();
        } catch (IOException | UncheckedIOException e) {
            System.err.println("weightstore: cannot delete the key-value cache directory " + dir + ": " + e.getMessage());
        }
    }

    /** Walks the tree once: close() runs it, or the hook does, never both. */
    private void delete() throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(dir)) {
            for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
