package io.weightstore.store.master;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    /** The variable RocksDB reads its answer to "is this musl?" from, when set. */
    private static final String MUSL_ENVIRONMENT = "ROCKSDB_MUSL_LIBC";
    /** musl's dynamic loader or C library, mapped into this process: /lib/ld-musl-x86_64.so.1, libc.musl-aarch64.so.1. */
    private static final Pattern MUSL_MAPPING = Pattern.compile("/(ld-musl-|libc\\.musl-)[^/\\s]*\\.so");

    private static final Logger log = LoggerFactory.getLogger(RocksNativeLibrary.class);
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
        answerTheMuslQuestion();
        Path kept = null;
        if (jar != null) {
            try {
                kept = keep(jar, Path.of(directory));
            } catch (IOException | RuntimeException e) {
                // A home this process may not write (a sandboxed service's, say) costs it the copy kept between runs, no more.
                log.warn("cannot keep RocksDB's native library in {} ({}); loading it RocksDB's own way, from a copy in the"
                        + " temporary directory", directory, e.getMessage());
            }
        }
        if (kept == null) {
            RocksDB.loadLibrary();
        } else {
            RocksDB.loadLibrary(List.of(kept.toString()));
        }
        loaded = true;
    }

    /**
     * RocksDB names its library after the C library it is to link against, and on Linux asks which one
     * by forking {@code sh -c 'ldd /usr/bin/env | grep -q musl'} unless {@value #MUSL_ENVIRONMENT} is
     * set: 110-130 ms of this process's CPU and 150-180 ms of wall time on a 2-core VM, more than
     * loading the library itself, in every CLI process that opens the embedded store. The C library
     * this JVM runs on is the one the library must match, and {@code /proc/self/maps} names it, so
     * RocksDB's answer is set from there. Should RocksDB rename the field it keeps the answer in, it
     * asks as before.
     */
    private static void answerTheMuslQuestion() {
        if (System.getenv(MUSL_ENVIRONMENT) != null || !Environment.isUnix()) {
            return;
        }
        try {
            boolean musl = mapsMusl(Files.readString(Path.of("/proc/self/maps")));
            Field answer = Environment.class.getDeclaredField("MUSL_LIBC");
            answer.setAccessible(true);
            answer.set(null, musl);
        } catch (IOException | ReflectiveOperationException | RuntimeException e) {
            // RocksDB forks its question, as it would without this.
        }
    }

    /** Whether a process whose {@code /proc/PID/maps} reads {@code maps} runs on musl. */
    static boolean mapsMusl(String maps) {
        return MUSL_MAPPING.matcher(maps).find();
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

    /** Read, not mapped: faulting 15 MB of mapped pages in took 42 ms of CPU on a 2-core VM, reading them 12. */
    private static long crc(Path file) throws IOException {
        CRC32 crc = new CRC32();
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (channel.read(buffer) >= 0) {
                crc.update(buffer.flip());
                buffer.clear();
            }
        }
        return crc.getValue();
    }
}
