package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * <p>Pieces that are one run of one file (an object written at once into one pool usually is) are
 * mapped by {@code FileChannel.map}. Otherwise, as that places each mapping where it likes, the pieces
 * are placed with {@code mmap(MAP_FIXED)} into a range reserved first. Linux only; pieces must start
 * on a page and all but the last must fill whole pages, which the master's 4 KiB allocation and slice
 * sizes give, and stitching needs 4 KiB pages.
 *
 * <p>The kernel maps a pool in huge pages by whole 2 MiB entries only where the mapping's address and
 * the file's offset agree modulo 2 MiB; elsewhere each 4 KiB page is an entry of its own, which the VMs
 * measured read ten times as slowly the first time. So the stitched range starts where the first
 * piece's file offset falls in its 2 MiB page: the master places slices of 2 MiB and more on the
 * pool's huge pages, so the pieces that follow agree as well (the JDK's own mapping of one run gets
 * this from the kernel).
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

    private static final boolean LINUX = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");

    private StitchedMapping() {}

    /** Whether this platform maps pool files in place (Linux). */
    public static boolean supported() {
        return LINUX;
    }

    /** Whether {@link #map} takes {@code pieces} here: one run of one file anywhere it runs; pieces to stitch with 4 KiB pages. */
    public static boolean mappable(List<Piece> pieces) {
        return LINUX && (oneRun(pieces) || Libc.FOUR_KIB_PAGES);
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
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool mappings need Linux");
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
        if (oneRun(pieces)) {
            return mapRun(pieces.getFirst(), total, arena);
        }
        if (!Libc.FOUR_KIB_PAGES) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "stitched pool mappings need 4 KiB pages");
        }
        long reserved = Math.max(PAGE, Math.ceilDiv(total, PAGE) * PAGE) + PoolFile.HUGE_PAGE;
        long firstFileOffset = pieces.isEmpty() ? 0 : PoolFile.DATA_START + pieces.getFirst().offset();
        Map<Path, Integer> files = new LinkedHashMap<>();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(Libc.CALL_STATE);
            long reservation = mmap(state, MemorySegment.NULL, reserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0,
                    "reserve " + reserved + " bytes of addresses").address();
            MemorySegment base = MemorySegment.ofAddress(reservation + Math.floorMod(firstFileOffset - reservation,
                    PoolFile.HUGE_PAGE));
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
                munmap(reservation, reserved);
                throw e;
            } finally {
                files.values().forEach(StitchedMapping::close);
            }
            return base.reinterpret(total, arena, s -> munmap(reservation, reserved)).asReadOnly();
        }
    }

    /** Whether the pieces lie end to end in one file, so one mapping of it holds them all. */
    private static boolean oneRun(List<Piece> pieces) {
        for (int i = 1; i < pieces.size(); i++) {
            Piece before = pieces.get(i - 1);
            if (!pieces.get(i).file().equals(before.file()) || pieces.get(i).offset() != before.offset() + before.length()) {
                return false;
            }
        }
        return !pieces.isEmpty();
    }

    /** {@code total} bytes of {@code first}'s file from its data offset, mapped by the JDK: no native call is linked for it. */
    private static MemorySegment mapRun(Piece first, long total, Arena arena) throws StoreException {
        try (FileChannel channel = FileChannel.open(first.file(), StandardOpenOption.READ); Arena header = Arena.ofConfined()) {
            PoolFile.requireIdentity(channel.map(FileChannel.MapMode.READ_ONLY, 0, PoolFile.DATA_START, header), first.file(),
                    first.pool());
            return channel.map(FileChannel.MapMode.READ_ONLY, PoolFile.DATA_START + first.offset(), total, arena);
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot map " + total + " bytes of " + first.file() + " at data offset "
                    + first.offset() + ": " + e, e);
        }
    }

    /** Opens a pool file and checks, through a mapping of its header, that it is the pool the master named. */
    private static int open(MemorySegment state, Arena call, Piece piece) throws StoreException {
        int fd;
        try {
            fd = (int) Libc.OPEN.invokeExact(state, call.allocateFrom(piece.file().toString()), O_RDONLY | O_CLOEXEC);
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
            address = (MemorySegment) Libc.MMAP.invokeExact(state, at, length, protection, flags, fd, offset);
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
            int result = (int) Libc.MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
            if (result != 0) {
                throw new IllegalStateException("munmap of " + length + " bytes at 0x" + Long.toHexString(address) + " failed");
            }
        } catch (Throwable e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("munmap(2) failed to run", e);
        }
    }

    private static void close(int fd) {
        try {
            int ignored = (int) Libc.CLOSE.invokeExact(fd);
        } catch (Throwable e) {
            throw new IllegalStateException("close(2) failed to run", e);
        }
    }

    private static String error(MemorySegment state) {
        int errno = (int) Libc.ERRNO.get(state, 0L);
        try {
            MemorySegment text = (MemorySegment) Libc.STRERROR.invokeExact(errno);
            return text.getString(0) + " (errno " + errno + ")";
        } catch (Throwable e) {
            return "errno " + errno;
        }
    }

    /**
     * libc's calls, linked on first use: a run of one file needs none of them, and in a fresh process the
     * first link costs tens of milliseconds of a model's load.
     */
    private static final class Libc {
        static final Linker LINKER = Linker.nativeLinker();
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final int SC_PAGESIZE = 30;
        static final boolean FOUR_KIB_PAGES = pageSize() == PAGE;
        static final MethodHandle MMAP = function("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        static final MethodHandle MUNMAP = function("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_LONG));
        static final MethodHandle OPEN = function("open", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT));
        static final MethodHandle CLOSE = function("close", FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        static final MethodHandle STRERROR = function("strerror", FunctionDescriptor.of(
                ValueLayout.ADDRESS.withTargetLayout(MemoryLayout.sequenceLayout(256, ValueLayout.JAVA_BYTE)), ValueLayout.JAVA_INT));

        private Libc() {}

        private static MethodHandle function(String name, FunctionDescriptor descriptor) {
            MemorySegment symbol = LINKER.defaultLookup().find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
            // The messages of failed mmap and open calls name errno; munmap and close fail only on a bug of ours.
            return name.equals("mmap") || name.equals("open") ? LINKER.downcallHandle(symbol, descriptor,
                    Linker.Option.captureCallState("errno")) : LINKER.downcallHandle(symbol, descriptor);
        }

        private static long pageSize() {
            try {
                MethodHandle sysconf = function("sysconf", FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
                return (long) sysconf.invokeExact(SC_PAGESIZE);
            } catch (Throwable e) {
                return -1;
            }
        }
    }
}
