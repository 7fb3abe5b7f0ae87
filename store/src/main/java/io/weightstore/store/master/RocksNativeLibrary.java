package io.weightstore.store.master;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Loads RocksDB's JNI library from a directory that keeps it between processes.
 *
 * <p>RocksDB's own loader inflates its 15 MB library out of its jar into a new temporary file on
 * every start, which costs a CLI process that opens the embedded store about half a second before
 * it reads a byte. With {@link #DIRECTORY_PROPERTY} set (the CLI sets it under its home), the
 * library is extracted there once, into a directory named after the jar entry's size and CRC, so a
 * new RocksDB version gets a directory of its own; later processes check the file's CRC (a few
 * milliseconds) and load it where it is. Without the property, or outside a jar, RocksDB loads as
 * it always does.
 */
public final class RocksNativeLibrary {
    /** The directory of kept native libraries. */
    public static final String DIRECTORY_PROPERTY = "weightstore.native.dir";

    private static boolean loaded;

    private RocksNativeLibrary() {}

    /**
     * Loads the library, before any RocksDB class is used: {@link RocksMetadataStore}'s class initialisation
     * does, and a process that will open a store soon may do it first on a thread of its own. Safe from any
     * thread, any number of times: one call loads, a call meanwhile waits for it, and later ones return at
     * once; after a failure the next call tries again.
     */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String directory = System.getProperty(DIRECTORY_PROPERTY);
        Path jar = directory == null ? null : rocksJar();
        if (jar == null) {
            RocksDB.loadLibrary();
        } else {
            try {
                Path kept = keep(jar, Path.of(directory));
                RocksDB.loadLibrary(List.of(kept.toString()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot keep RocksDB's native library in " + directory + ": " + e.getMessage(), e);
            }
        }
        loaded = true;
    }

    /** The jar RocksDB's classes came from, or null when they did not come from one. */
    static Path rocksJar() {
        CodeSource source = RocksDB.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        try {
            Path path = Path.of(source.getLocation().toURI());
            return Files.isRegularFile(path) ? path : null;
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The directory holding the library from {@code jar}, extracted into {@code root} if no good copy is there. */
    static Path keep(Path jar, Path root) throws IOException {
        String entryName = Environment.getJniLibraryFileName("rocksdb");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(entryName);
            if (entry == null || entry.getSize() < 0 || entry.getCrc() < 0) {
                throw new IOException(jar + " has no " + entryName + " for this platform");
            }
            Path dir = root.resolve(String.format(Locale.ROOT, "rocksdbjni-%d-%08x", entry.getSize(), entry.getCrc()));
            // The one name RocksDB.loadLibrary(paths) looks for in a directory it is given.
            Path library = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
            if (Files.isRegularFile(library) && Files.size(library) == entry.getSize() && crc(library) == entry.getCrc()) {
                return dir;
            }
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            // Written aside and moved in: a process loading meanwhile sees the old file or the whole new one.
            Path partial = Files.createTempFile(dir, "extract-", ".so");
            try {
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
                }
                Files.move(partial, library, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(partial);
            }
            return dir;
        }
    }

    private static long crc(Path file) throws IOException {
        CRC32 crc = new CRC32();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            crc.update(channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size()));
        }
        return crc.getValue();
    }
}
