package io.weightstore.store.pool;

import io.weightstore.store.api.StoreException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A node's memory pool: one file (on /dev/shm it is DRAM, on a disk it survives reboots) mapped into
 * memory. A 4 KiB header names the pool, so a node restarted on the same file keeps its identity and
 * data, and a client on the same host can check it mapped the pool the master told it about.
 *
 * <pre>
 * header (little-endian): 0 magic "WSPOOL01" | 8 u64 capacity | 16 u64 uuid msb | 24 u64 uuid lsb
 *                         | 32 u16 nodeId length | 34 nodeId (UTF-8, at most 256 bytes)
 * data: DATA_START .. DATA_START + capacity
 * </pre>
 */
public final class PoolFile implements AutoCloseable {
    public static final long DATA_START = 4096;
    /**
     * The page a pool on a tmpfs mounted with {@code huge=} is held in: slices placed on its boundaries, and mappings that
     * agree with them, are mapped by whole 2 MiB entries.
     */
    public static final long HUGE_PAGE = 2L << 20;
    /**
     * The writers of a pool (a put's slices in parallel, a node's connections) take turns in pieces of
     * at most this size, each ending on the file's 2 MiB grid: 1 and 2 MiB measured alike on an import,
     * 4 MiB and whole slices much worse (bench/README.md, bench import). A file system that caches files in large
     * folios (ext4 on Linux 6.18) gives a whole 2 MiB write on the grid one 2 MiB folio, which a mapping
     * then takes by one entry: written in 1 MiB pieces, the embedded store's pool had none mapped so,
     * and a same-host Jlama load of 1 GB took 0.98-1.15 s against 0.80-0.97 s (bench/README.md).
     */
    public static final int WRITE_PIECE = (int) HUGE_PAGE;
    /** Pages whose residency one mincore(2) call of a fault-in asks for: a vector of 64 KiB for 256 MiB. */
    private static final long MINCORE_PAGES_PER_CALL = 1 << 16;

    private static final long MAGIC = 0x31304c4f4f505357L; // "WSPOOL01" read as a little-endian long
    private static final long OFFSET_MAGIC = 0;
    private static final long OFFSET_CAPACITY = 8;
    private static final long OFFSET_UUID_MSB = 16;
    private static final long OFFSET_UUID_LSB = 24;
    private static final long OFFSET_NODE_ID_LENGTH = 32;
    private static final long OFFSET_NODE_ID = 34;
    private static final int MAX_NODE_ID = 256;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final FileChannel channel;
    private final Arena arena;
    private final MemorySegment data;
    private final long capacity;
    private final UUID uuid;
    private final String nodeId;
    private final ReentrantLock writers = new ReentrantLock();
    /** Whether reading a hole of the file through its mapping takes memory (a tmpfs); asked at the first fault-in. */
    private volatile Boolean holesTakeMemory;
    /**
     * The file opened again for lseek(2), at the first page of a fault-in found not in memory; -1 before. Guarded by
     * {@link #seeking}, apart from the writers and the mapping: a search for holes may walk far (from a page swapped out).
     */
    private int seekFd = -1;
    private final Object seeking = new Object();

    private PoolFile(Path path, FileChannel channel, Arena arena, MemorySegment file) {
        this.path = path;
        this.channel = channel;
        this.arena = arena;
        this.capacity = file.get(LONG, OFFSET_CAPACITY);
        this.uuid = new UUID(file.get(LONG, OFFSET_UUID_MSB), file.get(LONG, OFFSET_UUID_LSB));
        byte[] id = new byte[file.get(SHORT, OFFSET_NODE_ID_LENGTH)];
        MemorySegment.copy(file, ValueLayout.JAVA_BYTE, OFFSET_NODE_ID, id, 0, id.length);
        this.nodeId = new String(id, StandardCharsets.UTF_8);
        this.data = file.asSlice(DATA_START, capacity);
    }

    /**
     * Whether new bytes should go into a pool in {@code pages} through its mapping rather than by
     * {@code pwrite}: only on a tmpfs in huge pages. A store into a hole of a mapped file on a disk file
     * system has the kernel read the page in first, which for a hole (every page of a fresh pool)
     * means zeroing it before the store overwrites it; a write of whole pages skips that. A tmpfs in
     * 4 KiB pages (such as {@code /dev/shm}) takes a fault per page of a mapped copy: importing 1 GB
     * into an embedded store there cost 4.8-5.4 core-s per GB through the mapping against 1.27-1.31 by
     * {@code pwrite}, 0.37-0.41 GB/s against 1.40-1.51. In huge pages the two measured alike (bench/README.md).
     */
    public static boolean writesThroughMapping(PoolPages pages) {
        return pages.fileSystem().equals("tmpfs") && pages.hugePages();
    }

    /** {@link #writesThroughMapping(PoolPages)} of the file system this pool is on, as the mount table says now. */
    public boolean writesThroughMapping() {
        return writesThroughMapping(PoolPages.of(path));
    }

    /** Opens the pool at {@code path}, creating it with a new identity when missing. */
    public static PoolFile openOrCreate(Path path, long capacity) throws StoreException {
        return openOrCreate(path, capacity, null);
    }

    /**
     * As {@link #openOrCreate(Path, long)}; a pool created now takes {@code nodeId} (the node's
     * credential names it) rather than one made from its identity, and an existing pool must have it.
     */
    public static PoolFile openOrCreate(Path path, long capacity, String nodeId) throws StoreException {
        if (capacity <= 0) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool capacity must be > 0: capacity=" + capacity);
        }
        try {
            if (!Files.exists(path)) {
                create(path, capacity, UUID.randomUUID(), nodeId);
            }
            PoolFile pool = open(path, true);
            if (nodeId != null && !pool.nodeId.equals(nodeId)) {
                pool.close();
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool " + path + " belongs to node " + pool.nodeId
                        + ", but the credential is for node " + nodeId + "; use that node's credential, or a new pool file");
            }
            if (pool.capacity != capacity) {
                pool.close();
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool " + path + " has capacity "
                        + pool.capacity + ", asked for " + capacity + "; use the original capacity or a new pool file");
            }
            return pool;
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot open pool " + path + ": " + e.getMessage(), e);
        }
    }

    /** Maps an existing pool; a client on the node's host uses this for the copy path. */
    public static PoolFile open(Path path, boolean writable) throws StoreException {
        Set<StandardOpenOption> options = writable ? EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE)
                : EnumSet.of(StandardOpenOption.READ);
        Arena arena = Arena.ofShared();
        try {
            FileChannel channel = FileChannel.open(path, options);
            try {
                long size = channel.size();
                if (size < DATA_START) {
                    throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "not a pool file (too short): " + path);
                }
                MemorySegment file = channel.map(writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                        0, size, arena);
                if (file.get(LONG, OFFSET_MAGIC) != MAGIC) {
                    throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "not a pool file (bad magic): " + path);
                }
                long capacity = file.get(LONG, OFFSET_CAPACITY);
                if (capacity <= 0 || DATA_START + capacity != size) {
                    throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool file " + path + " has size " + size
                            + " but its header says capacity " + capacity);
                }
                return new PoolFile(path, channel, arena, file);
            } catch (StoreException | RuntimeException e) {
                channel.close();
                throw e;
            }
        } catch (StoreException e) {
            arena.close();
            throw e;
        } catch (IOException e) {
            arena.close();
            throw new StoreException(StoreException.Code.IO, "cannot map pool " + path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Checks that a pool file's header (its first {@link #DATA_START} bytes, mapped or read by someone
     * else) names pool {@code expected}, the one the master said is at {@code path}.
     */
    public static void requireIdentity(MemorySegment header, Path path, UUID expected) throws StoreException {
        if (header.byteSize() < DATA_START || header.get(LONG, OFFSET_MAGIC) != MAGIC) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "not a pool file (bad magic): " + path);
        }
        UUID found = new UUID(header.get(LONG, OFFSET_UUID_MSB), header.get(LONG, OFFSET_UUID_LSB));
        if (!found.equals(expected)) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "pool file " + path + " is pool " + found + ", expected "
                    + expected);
        }
    }

    /** As {@link #requireIdentity(MemorySegment, Path, UUID)}, for the header read through {@code file}, a channel on that pool file. */
    public static void requireIdentity(FileChannel file, Path path, UUID expected) throws IOException {
        ByteBuffer header = ByteBuffer.allocate((int) DATA_START);
        // A file shorter than a header fills it only in part, and fails the check below.
        PositionalReads.fill(file, 0, header);
        requireIdentity(MemorySegment.ofBuffer(header.flip()), path, expected);
    }

    private static void create(Path path, long capacity, UUID uuid, String chosenNodeId) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path partial = path.resolveSibling(path.getFileName() + ".creating");
        try {
            writeHeader(partial, capacity, uuid, chosenNodeId);
        } catch (IOException | RuntimeException e) {
            // A pool that cannot be made whole (a capacity the file system cannot hold, say) leaves nothing behind.
            Files.deleteIfExists(partial);
            throw e;
        }
        Files.move(partial, path, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void writeHeader(Path partial, long capacity, UUID uuid, String chosenNodeId) throws IOException {
        String nodeId = chosenNodeId != null ? chosenNodeId : "node-" + uuid.toString().substring(0, 8);
        byte[] id = nodeId.getBytes(StandardCharsets.UTF_8);
        // Owner only: whoever can open the pool reads every replica on the node and can rewrite it.
        try (FileChannel channel = FileChannel.open(partial, EnumSet.of(StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.READ, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Arena arena = Arena.ofConfined()) {
            // Sparse: pages are only backed by memory once written.
            channel.write(ByteBuffer.allocate(1), DATA_START + capacity - 1);
            MemorySegment header = channel.map(FileChannel.MapMode.READ_WRITE, 0, DATA_START, arena);
            header.set(LONG, OFFSET_CAPACITY, capacity);
            header.set(LONG, OFFSET_UUID_MSB, uuid.getMostSignificantBits());
            header.set(LONG, OFFSET_UUID_LSB, uuid.getLeastSignificantBits());
            header.set(SHORT, OFFSET_NODE_ID_LENGTH, (short) Math.min(id.length, MAX_NODE_ID));
            MemorySegment.copy(id, 0, header, ValueLayout.JAVA_BYTE, OFFSET_NODE_ID, Math.min(id.length, MAX_NODE_ID));
            header.set(LONG, OFFSET_MAGIC, MAGIC);
            header.force();
        }
    }

    public Path path() {
        return path;
    }

    /**
     * Has the kernel fault in, for reading, the pages under the data's {@code length} bytes at
     * {@code offset}, so that reading them through the mapping cannot end the process. A range nothing
     * wrote may be a hole of the file, which needs a page of its own when it is read, and a tmpfs with
     * no room left (other files filled it) answers that with SIGBUS, which kills the process whatever
     * thread read: one frame of checks from any reader would end a node. Asked first, the kernel
     * answers with an error instead. A kernel without the advice (before Linux 5.14) is not asked.
     *
     * @throws StoreException CORRUPT when the pages cannot be read (a hole with no room to fill it,
     *     or the device under the file failing), IO when the kernel is short of memory for them
     */
    public void faultIn(long offset, long length) throws StoreException {
        if (!Libc.LINUX || length == 0) {
            return;
        }
        long start = data.address() + offset;
        // The data starts 4 KiB into the mapping: on a kernel of larger pages, the page it lies in starts before it.
        long page = Libc.pageSize();
        long pageStart = start & -page;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = call.allocate(Libc.CALL_STATE);
            if (holesTakeMemory()) {
                requireWritten(state, call, offset, length, page, pageStart, start + length);
            }
            if (Libc.madvise(state, pageStart, start + length - pageStart, Libc.MADV_POPULATE_READ) == 0) {
                return;
            }
            int errno = Libc.errno(state);
            if (errno == Libc.EINVAL) {
                return;
            }
            throw new StoreException(errno == Libc.EFAULT ? StoreException.Code.CORRUPT : StoreException.Code.IO, "pool " + path
                    + " cannot give the pages of offset " + offset + " length " + length + " to read: " + Libc.error(state)
                    + (errno == Libc.EFAULT ? " (a range never written, on a file system with no room left, or a failing device)" : ""));
        }
    }

    private boolean holesTakeMemory() {
        Boolean known = holesTakeMemory;
        if (known == null) {
            // Racing first calls each ask the mount table, and agree.
            known = "tmpfs".equals(PoolPages.of(path).fileSystem());
            holesTakeMemory = known;
        }
        return known;
    }

    /**
     * Refuses a range of a pool on a tmpfs that has a page nothing wrote. Read through the mapping, such a hole
     * takes a page of memory of its own (a file's shared mapping has no zero page to share) that nothing frees, so
     * a reader asking for ranges no object holds (any reader of an insecure node, one with a checked or strided
     * read of any other) would fill the node's host with pages of zeros. The kernel says which pages it holds
     * (mincore); only from the first it does not (a hole, or a page swapped out) is the file asked for its next hole.
     * Only a tmpfs: elsewhere a hole read costs a page of cache the kernel may take back, and a file system that
     * stores blocks of zeros as holes would have written objects refused.
     */
    private void requireWritten(MemorySegment state, Arena call, long offset, long length, long pageSize, long pageStart, long end)
            throws StoreException {
        long pages = Math.ceilDiv(end - pageStart, pageSize);
        MemorySegment resident = call.allocate(Math.min(pages, MINCORE_PAGES_PER_CALL));
        for (long page = 0; page < pages; page += resident.byteSize()) {
            long count = Math.min(pages - page, resident.byteSize());
            if (Libc.mincore(state, pageStart + page * pageSize, count * pageSize, resident) != 0) {
                throw new StoreException(StoreException.Code.IO, "pool " + path + " cannot say which pages of offset " + offset
                        + " length " + length + " it holds: " + Libc.error(state));
            }
            for (long i = 0; i < count; i++) {
                if ((resident.get(ValueLayout.JAVA_BYTE, i) & 1) == 0) {
                    long from = Math.max(DATA_START + offset, DATA_START + pageStart - data.address() + (page + i) * pageSize);
                    requireNoHoleFrom(state, call, from, offset, length);
                    return;
                }
            }
        }
    }

    /** Refuses the range of {@code offset} and {@code length} when the file has a hole between {@code from} and its end. */
    private void requireNoHoleFrom(MemorySegment state, Arena call, long from, long offset, long length) throws StoreException {
        long hole;
        synchronized (seeking) {
            if (seekFd < 0) {
                int fd = Libc.open(state, call, path.toString(), Libc.O_RDONLY | Libc.O_CLOEXEC);
                if (fd < 0) {
                    throw new StoreException(StoreException.Code.IO, "cannot open pool " + path + " to find its holes: " + Libc.error(state));
                }
                seekFd = fd;
            }
            hole = Libc.lseek(state, seekFd, from, Libc.SEEK_HOLE);
        }
        if (hole < 0) {
            throw new StoreException(StoreException.Code.IO, "cannot find the holes of pool " + path + ": " + Libc.error(state));
        }
        if (hole < DATA_START + offset + length) {
            throw new StoreException(StoreException.Code.CORRUPT, "pool " + path + " holds nothing at offset " + (hole - DATA_START)
                    + " of offset " + offset + " length " + length + " (never written): refused, as reading it would take memory");
        }
    }

    /** The data region, {@link #capacity()} bytes; offsets in the protocol and the master are relative to it. */
    public MemorySegment data() {
        return data;
    }

    /** The file, for sendfile; data offsets are shifted by {@link #DATA_START}. */
    public FileChannel channel() {
        return channel;
    }

    /**
     * Writes all of {@code bytes} (off-heap) at data offset {@code offset} by {@code pwrite} through
     * {@code file} (this pool's channel, or one of the caller's own on the same file), in pieces that end
     * on the file's {@link #WRITE_PIECE} grid, one writer of this pool at a time per piece. Writers of one
     * file queue on its lock in the kernel anyway, and there the waiting ones spin on a core while the
     * holder copies; here they park, and the core does other work.
     */
    public void writeInTurn(FileChannel file, long offset, MemorySegment bytes) throws IOException {
        for (long done = 0; done < bytes.byteSize(); ) {
            long start = DATA_START + offset + done;
            long length = Math.min(WRITE_PIECE - Math.floorMod(start, WRITE_PIECE), bytes.byteSize() - done);
            ByteBuffer piece = bytes.asSlice(done, length).asByteBuffer();
            writers.lock();
            try {
                for (long position = start; piece.hasRemaining(); ) {
                    position += file.write(piece, position);
                }
            } finally {
                writers.unlock();
            }
            done += length;
        }
    }

    public long capacity() {
        return capacity;
    }

    public UUID uuid() {
        return uuid;
    }

    public String nodeId() {
        return nodeId;
    }

    @Override
    public void close() throws StoreException {
        synchronized (seeking) {
            if (seekFd >= 0) {
                Libc.close(seekFd);
                seekFd = -1;
            }
        }
        try {
            arena.close();
            channel.close();
        } catch (IOException e) {
            throw new StoreException(StoreException.Code.IO, "cannot close pool " + path + ": " + e.getMessage(), e);
        }
    }
}
