package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.pool.PoolPages;
import io.weightstore.store.pool.PositionalReads;
import io.weightstore.store.pool.StitchedMapping;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.IntFunction;

/**
 * Whole objects seen in place, in the pools of nodes on this host: every slice from a copy in a pool
 * this client can map, stitched into one read-only segment, so a reader gets the object's bytes
 * without a copy; or the same pieces open as files, for sendfile. Its checksum blocks can be checked
 * in parallel on the client's workers: a pass over memory that reads each byte once and, unlike a
 * copy, writes nothing.
 */
final class LocalMapper {
    private final ExecutorService workers;
    private final NodeConnections connections;
    /** Whether each pool file seen so far is in huge pages: its mount does not change under a running node. */
    private final Map<Path, Boolean> poolsInHugePages = new ConcurrentHashMap<>();

    LocalMapper(ExecutorService workers, NodeConnections connections) {
        this.workers = workers;
        this.connections = connections;
    }

    /** The object's bytes and the copies they map, or empty when some slice has no copy here that can be mapped. */
    Optional<MappedObject> map(Located located, Arena arena) throws IOException {
        Optional<List<StitchedMapping.Piece>> pieces = pieces(located).filter(StitchedMapping::mappable);
        return pieces.isEmpty() ? Optional.empty()
                : Optional.of(new MappedObject(this, located.object(), pieces.get(), StitchedMapping.map(pieces.get(), arena)));
    }

    /** The object's pool files, open, or empty when some slice has no copy here. */
    Optional<InPlaceFiles> open(Located located) throws IOException {
        Optional<List<StitchedMapping.Piece>> pieces = pieces(located);
        return pieces.isEmpty() ? Optional.empty() : Optional.of(InPlaceFiles.open(pieces.get()));
    }

    /** Where each slice has a copy on this host, end to end, or empty when some slice has none. */
    private Optional<List<StitchedMapping.Piece>> pieces(Located located) {
        if (!StitchedMapping.supported()) {
            return Optional.empty();
        }
        ObjectMeta object = located.object();
        List<StitchedMapping.Piece> pieces = new ArrayList<>();
        for (int i = 0; i < object.slices().size(); i++) {
            SliceMeta slice = object.slices().get(i);
            boolean last = i == object.slices().size() - 1;
            Optional<StitchedMapping.Piece> piece = Optional.empty();
            for (ReplicaRef replica : slice.replicas()) {
                NodeStatus node = located.nodes().get(replica.nodeId());
                if (node != null && connections.isLocal(node.info()) && StitchedMapping.alignable(replica.offset(), slice.length(), last)) {
                    piece = Optional.of(new StitchedMapping.Piece(Path.of(node.info().poolPath()), node.info().poolUuid(),
                            replica.offset(), slice.length()));
                    break;
                }
            }
            if (piece.isEmpty()) {
                return Optional.empty();
            }
            pieces.add(piece.get());
        }
        return Optional.of(pieces);
    }

    /**
     * Checks every block of {@code view}, the object's bytes as {@link #map} mapped them from
     * {@code pieces}, against the object's checksums, slices in parallel; returns once no check runs,
     * so the caller may unmap the view. A slice in a pool of huge pages is checked through the view.
     * Elsewhere it is read from its pool file, whose pages the view maps shared, so the read sees the
     * bytes the view shows: in a page cache of 4 KiB folios, a first pass through a mapping faults in
     * page after page, where a read takes them from the kernel's own map (a C probe over 1,000 MiB of an embedded store's pool
     * on ext4, half of it in 2 MiB folios: 9.2-9.4 GB/s read into a 1 MiB buffer against 3.3-3.6
     * through a mapping; all of it in 2 MiB folios: 10.6-11.5 against 16.0-17.7).
     */
    void check(ObjectMeta object, List<StitchedMapping.Piece> pieces, MemorySegment view) throws IOException {
        List<Boolean> throughView = pieces.stream().map(piece -> inHugePages(piece.file())).toList();
        try (InPlaceFiles files = throughView.contains(false) ? InPlaceFiles.open(pieces) : null) {
            checkSlices(object, index -> throughView.get(index) ? () -> checkSlice(object, index, view::asSlice)
                    : () -> checkSliceRead(object, index, files));
        }
    }

    /**
     * Checks every block of the object as {@code files} hold it, read from them, slices in parallel:
     * the bytes a transfer from those files sends, wherever the object's copies are by then.
     */
    void check(ObjectMeta object, InPlaceFiles files) throws IOException {
        if (files.size() != object.size()) {
            throw new IllegalArgumentException("files of " + files.size() + " bytes do not hold " + object.key() + " of "
                    + object.size());
        }
        checkSlices(object, index -> () -> checkSliceRead(object, index, files));
    }

    private void checkSlices(ObjectMeta object, IntFunction<RunningTasks.Task> checkOfSlice) throws IOException {
        List<RunningTasks.Task> checks = new ArrayList<>();
        for (int i = 0; i < object.slices().size(); i++) {
            checks.add(checkOfSlice.apply(i));
        }
        RunningTasks.runAll(workers, checks);
    }

    private boolean inHugePages(Path pool) {
        return poolsInHugePages.computeIfAbsent(pool, p -> PoolPages.of(p).hugePages());
    }

    /** A slice's blocks read from its pool file into one buffer of a block, in turn. */
    private static void checkSliceRead(ObjectMeta object, int index, InPlaceFiles files) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(object.checksumBlockSize(), 64);
            checkSlice(object, index, (offset, length) -> read(object, files, offset, buffer.asSlice(0, length)));
        }
    }

    /** The object's bytes at {@code offset}, read into {@code into}, which they fill. */
    private static MemorySegment read(ObjectMeta object, InPlaceFiles files, long offset, MemorySegment into) throws IOException {
        long at = 0;
        for (InPlaceFiles.FileRange range : files.ranges(offset, into.byteSize())) {
            if (!PositionalReads.fill(range.file(), range.position(), into.asSlice(at, range.length()).asByteBuffer())) {
                throw new StoreException(StoreException.Code.IO, "a pool file on this host ended within bytes " + offset + "-"
                        + (offset + into.byteSize()) + " of " + object.key() + ", which it holds (pools "
                        + files.copies().stream().map(StitchedMapping.Piece::file).distinct().toList() + ")");
            }
            at += range.length();
        }
        return into;
    }

    /** Where the bytes of a block come from. */
    @FunctionalInterface
    private interface Blocks {
        MemorySegment bytes(long objectOffset, long length) throws IOException;
    }

    private static void checkSlice(ObjectMeta object, int index, Blocks blocks) throws IOException {
        SliceMeta slice = object.slices().get(index);
        int blockSize = object.checksumBlockSize();
        for (int block = 0; (long) block * blockSize < slice.length(); block++) {
            long start = (long) block * blockSize;
            long length = Math.min(blockSize, slice.length() - start);
            int actual = Checksums.crc32c(blocks.bytes(slice.offset() + start, length));
            if (actual != slice.crcs().get(block)) {
                throw new StoreException(StoreException.Code.CORRUPT, "checksum mismatch in " + object.key() + ", slice " + index
                        + " block " + block + " (in a pool on this host): expected " + Integer.toHexString(slice.crcs().get(block))
                        + ", found " + Integer.toHexString(actual));
            }
        }
    }
}
