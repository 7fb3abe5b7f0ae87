package io.weightstore.store.checksum;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.URI;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.Checksum;

/**
 * A running CRC32C computed by the store's native library ({@code src/main/c/crc32c.c}), which
 * gives the same values as {@link java.util.zip.CRC32C}: on CPUs with AVX-512 and VPCLMULQDQ it
 * folds, level with the JDK 25 intrinsic; on CPUs with VPCLMULQDQ but no AVX-512 it folds beside
 * three crc32 chains; on Zen 1, whose crc32 is slow, it folds on 128-bit registers alone (1.6-1.8 times
 * the JDK's speed); on other CPUs without VPCLMULQDQ, its three crc32 chains ran 1.3 times as fast as
 * the JDK on bytes in cache and 1.8 times out of it (measured on an earlier VM). Use
 * {@link Checksums}, which falls back to the JDK where the library is not available.
 */
final class NativeCrc32c implements Checksum {
    /** Set to {@code jdk} to use the JDK's CRC32C even where the native library loads. */
    static final String PROPERTY = "weightstore.crc32c";

    private static final MethodHandle UPDATE;
    private static final SymbolLookup LIBRARY;
    private static final String DESCRIPTION;

    /** The library, its entry point, and how it computes on this CPU. */
    private record Loaded(SymbolLookup library, MethodHandle update, String description) {}

    static {
        MethodHandle update = null;
        SymbolLookup library = null;
        String description;
        try {
            Loaded loaded = load();
            update = loaded.update();
            library = loaded.library();
            description = loaded.description();
        } catch (Throwable e) {
            description = "JDK CRC32C (native library not used: " + Objects.requireNonNullElse(e.getMessage(), e.toString()) + ")";
        }
        UPDATE = update;
        LIBRARY = library;
        DESCRIPTION = description;
    }

    private int crc;

    static boolean available() {
        return UPDATE != null;
    }

    /** Which CRC32C the store computes with, and why when it is not the native one. */
    static String description() {
        return DESCRIPTION;
    }

    /** The CRC32C of {@code bytes} continuing from {@code crc} (0 to start). */
    static int update(int crc, MemorySegment bytes) {
        try {
            return (int) UPDATE.invokeExact(crc, bytes, bytes.byteSize());
        } catch (Throwable e) {
            throw new IllegalStateException("native CRC32C failed", e);
        }
    }

    /** The CRC32C of each of {@code count} cells of {@code cellBytes} bytes, one after another from the start of {@code bytes}. */
    static void cells(MemorySegment bytes, long cellBytes, int count, int[] crcs) {
        try {
            Cells.HANDLE.invokeExact(bytes, cellBytes, (long) count, MemorySegment.ofArray(crcs));
        } catch (Throwable e) {
            throw new IllegalStateException("native CRC32C failed", e);
        }
    }

    /** Linked on first use: imports and verifications hash cells, and a load need not pay for one more link. */
    private static final class Cells {
        static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(LIBRARY.findOrThrow("weightstore_crc32c_cells"),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                Linker.Option.critical(true));
    }

    @Override
    public void update(int b) {
        update(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void update(byte[] bytes, int offset, int length) {
        crc = update(crc, MemorySegment.ofArray(bytes).asSlice(offset, length));
    }

    @Override
    public void update(ByteBuffer buffer) {
        crc = update(crc, MemorySegment.ofBuffer(buffer));
        buffer.position(buffer.limit());
    }

    @Override
    public long getValue() {
        return Integer.toUnsignedLong(crc);
    }

    @Override
    public void reset() {
        crc = 0;
    }

    private static Loaded load() throws Throwable {
        if ("jdk".equals(System.getProperty(PROPERTY))) {
            throw new IllegalStateException(PROPERTY + "=jdk");
        }
        String platform = System.getProperty("os.name").toLowerCase(Locale.ROOT) + "-" + System.getProperty("os.arch");
        String resource = "native/" + platform + "/libweightstore-crc32c.so";
        URL url = NativeCrc32c.class.getResource(resource);
        if (url == null) {
            throw new IllegalStateException("not built for " + platform);
        }
        Linker linker = Linker.nativeLinker();
        SymbolLookup library = open(url);
        MethodHandle init = linker.downcallHandle(library.findOrThrow("weightstore_crc32c_init"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        int mode = (int) init.invokeExact();
        if (mode == 0) {
            throw new IllegalStateException("this CPU lacks SSE 4.2 or PCLMUL");
        }
        // critical: the call is short and never blocks, so it skips the thread-state transition
        // and may read heap arrays in place.
        MethodHandle update = linker.downcallHandle(library.findOrThrow("weightstore_crc32c"),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG),
                Linker.Option.critical(true));
        String description = switch (mode) {
            case 2 -> "native (AVX-512 VPCLMULQDQ folding from 2 KiB, crc32 chains below)";
            case 3 -> "native (AVX2 VPCLMULQDQ folding beside 3 crc32 chains from 32 KiB, folding alone from 2 KiB)";
            case 4 -> "native (PCLMUL folding on 128-bit registers from 256 B: this CPU's crc32 is slow)";
            default -> "native (3 interleaved crc32 chains; SSE 4.2, PCLMUL)";
        };
        return new Loaded(library, update, description);
    }

    /** Opens the library where it lies when the classes are a directory, else from a copy out of the jar. */
    private static SymbolLookup open(URL url) throws IOException {
        if ("file".equals(url.getProtocol())) {
            return SymbolLookup.libraryLookup(Path.of(URI.create(url.toString())), Arena.global());
        }
        Path copy = Files.createTempFile("weightstore-crc32c-", ".so");
        try {
            try (InputStream in = url.openStream()) {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            return SymbolLookup.libraryLookup(copy, Arena.global());
        } finally {
            // An open library outlives its directory entry: nothing is left behind, even after kill -9.
            Files.delete(copy);
        }
    }
}
