package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * Ranges of pool files on this host mapped read-only, end to end, into one range of addresses: an
 * object whose slices lie in one pool or in several is seen as one segment, as a file is through
 * mmap, and no byte is copied. The kernel shares the pools' pages; nothing is faulted in until read.
 *
 * <p>{@code FileChannel.map} places each mapping where it likes, so the pieces are placed with
 * {@code mmap(MAP_FIXED)} into a range reserved first. Linux only; pieces must start on a page and
 * all but the last must fill whole pages, which the master's 4 KiB allocation and slice sizes give.
 */
public final class StitchedMapping {
    /** {@code length} bytes of the pool file {@code file} (whose header must name {@code pool}) from data offset {@code offset}. */
    public record Piece(Path file, UUID pool, long offset, long length) {}

    private static final long PAGE = 4096;
    private static final int PROT_NONE = 0;
    private static final int PROT_READ = 1;
    private static final int MAP_SHARED = 0x01;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_FIXED = 0x10;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MAP_NORESERVE = 0x4000;
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final int SC_PAGESIZE = 30;
    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
            && pageSize() == PAGE;
    private static final MethodHandle MMAP = function("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = function("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_LONG));
    private static final MethodHandle OPEN = function("open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
            ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle STRERROR = LINUX ? LINKER.downcallHandle(LINKER.defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, ValueLayout.JAVA_BYTE)),
                    ValueLayout.JAVA_INT)) : null;

    private StitchedMapping() {}

    /** Whether this platform can stitch mappings (Linux with 4 KiB pages). */
    public static boolean supported() {
        return LINUX;
    }

    /** Whether a piece may go after others in a stitched range: it starts on a page boundary of its file. */
    public static boolean alignable(long dataOffset, long length, boolean last) {
        return (PoolFile.DATA_START + dataOffset) % PAGE == 0 && (last || length % PAGE == 0);
    }

    /**
     * Maps {@code pieces} in order as one read-only segment that lives as long as {@code arena}: closing
     * the arena unmaps it, and a later access fails with {@link IllegalStateException} rather than
     * reading freed addresses. The mapping holds the files itself; closing the pools does not end it.
     */
    public static MemorySegment map(List<Piece> pieces, Arena arena) throws StoreException {
        if (!LINUX) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "stitched pool mappings need Linux with 4 KiB pages");
        }
        long total = 0;
        for (int i = 0; i < pieces.size(); i++) {
            Piece piece = pieces.get(i);
            if (!alignable(piece.offset(), piece.length(), i == pieces.size() - 1)) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "piece " + i + " of pool " + piece.file() + " at data offset "
                        + piece.offset() + " length " + piece.length() + " is not page-aligned; it cannot be stitched");
            }
            total += piece.length();
        }
        long reserved = Math.max(PAGE, Math.ceilDiv(total, PAGE) * PAGE);
        Map<Path, Integer> files = new LinkedHashMap<>();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(CALL_STATE);
            MemorySegment base = mmap(state, MemorySegment.NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0,
                    "reserve " + reserved + " bytes of addresses");
            try {
                long at = 0;
                for (Piece piece : pieces) {
                    if (piece.length() == 0) {
                        continue;
                    }
                    Integer fd = files.get(piece.file());
                    if (fd == null) {
                        fd = open(state, call, piece);
                        files.put(piece.file(), fd);
                    }
                    long length = Math.ceilDiv(piece.length(), PAGE) * PAGE;
                    mmap(state, MemorySegment.ofAddress(base.address() + at), length, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
                            PoolFile.DATA_START + piece.offset(), "map " + length + " bytes of " + piece.file() + " at data offset "
                                    + piece.offset());
                    at += piece.length();
                }
            } catch (StoreException | RuntimeException e) {
                munmap(base.address(), reserved);
                throw e;
            } finally {
                files.values().forEach(StitchedMapping::close);
            }
            return MemorySegment.ofAddress(base.address()).reinterpret(total, arena, s -> munmap(s.address(), reserved)).asReadOnly();
        }
    }

    /** Opens a pool file and checks, through a mapping of its header, that it is the pool the master named. */
    private static int open(MemorySegment state, Arena call, Piece piece) throws StoreException {
        int fd;
        try {
            fd = (int) OPEN.invokeExact(state, call.allocateFrom(piece.file().toString()), O_RDONLY | O_CLOEXEC);
        } catch (Throwable e) {
            throw new IllegalStateException("open(2) failed to run", e);
        }
        if (fd < 0) {
            throw new StoreException(StoreException.Code.IO, "cannot open pool " + piece.file() + ": " + error(state));
        }
        try {
            MemorySegment header = mmap(state, MemorySegment.NULL, PoolFile.DATA_START, PROT_READ, MAP_SHARED, fd, 0,
                    "map the header of " + piece.file());
            try {
                PoolFile.requireIdentity(header.reinterpret(PoolFile.DATA_START), piece.file(), piece.pool());
            } finally {
                munmap(header.address(), PoolFile.DATA_START);
            }
            return fd;
        } catch (StoreException | RuntimeException e) {
            close(fd);
            throw e;
        }
    }

    private static MemorySegment mmap(MemorySegment state, MemorySegment at, long length, int protection, int flags, int fd, long offset,
            String what) throws StoreException {
        MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(state, at, length, protection, flags, fd, offset);
        } catch (Throwable e) {
            throw new IllegalStateException("mmap(2) failed to run", e);
        }
        if (address.address() == -1L) {
            throw new StoreException(StoreException.Code.IO, "cannot " + what + ": " + error(state));
        }
        return address;
    }

    private static void munmap(long address, long length) {
        try {
            int result = (int) MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
            if (result != 0) {
                throw new IllegalStateException("munmap of " + length + " bytes at 0x" + Long.toHexString(address) + " failed");
            }
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("munmap(2) failed to run", e);
        }
    }

    private static void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            throw new IllegalStateException("close(2) failed to run", e);
        }
    }

    private static String error(MemorySegment state) {
        int errno = (int) ERRNO.get(state, 0L);
        try {
            MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
            return text.getString(0) + " (errno " + errno + ")";
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    private static MethodHandle function(String name, FunctionDescriptor descriptor) {
        if (!LINUX) {
            return null;
        }
        MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        // The messages of failed mmap and open calls name errno; munmap and close fail only on a bug of ours.
        return name.equals("mmap") || name.equals("open") ? LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"))
                : LINKER.downcallHandle(symbol, descriptor);
    }

    private static long pageSize() {
        try {
            MethodHandle sysconf = LINKER.downcallHandle(LINKER.defaultLookup().find("sysconf").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            return (long) sysconf.invokeExact(SC_PAGESIZE);
        } catch (Throwable e) {
            return -1;
        }
    }
}
