package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
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

    private StitchedMapping() {}

    /** Whether this platform maps pool files in place (Linux). */
    public static boolean supported() {
        return Libc.LINUX;
    }

    /** Whether {@link #map} takes {@code pieces} here: one run of one file anywhere it runs; pieces to stitch with 4 KiB pages. */
    public static boolean mappable(List<Piece> pieces) {
        return Libc.LINUX && (oneRun(pieces) || Libc.fourKibPages());
    }

    /** Whether a piece may go after others in a stitched range: it starts on a page boundary of its file. */
    public static boolean alignable(long dataOffset, long length, boolean last) {
        return (PoolFile.DATA_START + dataOffset) % Libc.PAGE == 0 && (last || length % Libc.PAGE == 0);
    }

    /**
     * Maps {@code pieces} in order as one read-only segment that lives as long as {@code arena}: closing
     * the arena unmaps it, and a later access fails with {@link IllegalStateException} rather than
     * reading freed addresses. The mapping holds the files itself; closing the pools does not end it.
     */
    public static MemorySegment map(List<Piece> pieces, Arena arena) throws StoreException {
        if (!Libc.LINUX) {
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
        if (!Libc.fourKibPages()) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "stitched pool mappings need 4 KiB pages");
        }
        long reserved = Math.max(Libc.PAGE, Math.ceilDiv(total, Libc.PAGE) * Libc.PAGE) + PoolFile.HUGE_PAGE;
        long firstFileOffset = pieces.isEmpty() ? 0 : PoolFile.DATA_START + pieces.getFirst().offset();
        Map<Path, Integer> files = new LinkedHashMap<>();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(Libc.CALL_STATE);
            long reservation = Libc.mmap(state, MemorySegment.NULL, reserved, Libc.PROT_NONE,
                    Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS | Libc.MAP_NORESERVE, -1, 0,
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
                    long length = Math.ceilDiv(piece.length(), Libc.PAGE) * Libc.PAGE;
                    Libc.mmap(state, MemorySegment.ofAddress(base.address() + at), length, Libc.PROT_READ,
                            Libc.MAP_SHARED | Libc.MAP_FIXED, fd,
                            PoolFile.DATA_START + piece.offset(), "map " + length + " bytes of " + piece.file() + " at data offset "
                                    + piece.offset());
                    at += piece.length();
                }
                // Inside the try: an arena closed meanwhile refuses the segment, and the mapping must not outlive that.
                return base.reinterpret(total, arena, s -> Libc.munmap(reservation, reserved)).asReadOnly();
            } catch (StoreException | RuntimeException e) {
                Libc.munmap(reservation, reserved);
                throw e;
            } finally {
                files.values().forEach(Libc::close);
            }
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
        int fd = Libc.open(state, call, piece.file().toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
        if (fd < 0) {
            throw new StoreException(StoreException.Code.IO, "cannot open pool " + piece.file() + ": " + Libc.error(state));
        }
        try {
            MemorySegment header = Libc.mmap(state, MemorySegment.NULL, PoolFile.DATA_START, Libc.PROT_READ, Libc.MAP_SHARED, fd, 0,
                    "map the header of " + piece.file());
            try {
                PoolFile.requireIdentity(header.reinterpret(PoolFile.DATA_START), piece.file(), piece.pool());
            } finally {
                Libc.munmap(header.address(), PoolFile.DATA_START);
            }
            return fd;
        } catch (StoreException | RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }
}
