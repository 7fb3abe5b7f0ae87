package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.pool.StitchedMapping;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

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

    LocalMapper(ExecutorService workers, NodeConnections connections) {
        this.workers = workers;
        this.connections = connections;
    }

    /** The object's bytes, or empty when some slice has no copy here that can be mapped. */
    Optional<MemorySegment> map(Located located, Arena arena) throws IOException {
        Optional<List<StitchedMapping.Piece>> pieces = pieces(located).filter(StitchedMapping::mappable);
        return pieces.isEmpty() ? Optional.empty() : Optional.of(StitchedMapping.map(pieces.get(), arena));
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
     * Checks every block of {@code view}, the object's bytes, against the object's checksums, slices
     * in parallel; returns once no check runs, so the caller may unmap the view.
     */
    void check(ObjectMeta object, MemorySegment view) throws IOException {
        List<RunningTasks.Task> checks = new ArrayList<>();
        for (int i = 0; i < object.slices().size(); i++) {
            int index = i;
            checks.add(() -> checkSlice(object, index, view));
        }
        RunningTasks.runAll(workers, checks);
    }

    private static void checkSlice(ObjectMeta object, int index, MemorySegment view) throws StoreException {
        SliceMeta slice = object.slices().get(index);
        int blockSize = object.checksumBlockSize();
        for (int block = 0; (long) block * blockSize < slice.length(); block++) {
            long start = (long) block * blockSize;
            long length = Math.min(blockSize, slice.length() - start);
            int actual = Checksums.crc32c(view.asSlice(slice.offset() + start, length));
            if (actual != slice.crcs().get(block)) {
                throw new StoreException(StoreException.Code.CORRUPT, "checksum mismatch in " + object.key() + ", slice " + index
                        + " block " + block + " (mapped on this host): expected " + Integer.toHexString(slice.crcs().get(block))
                        + ", found " + Integer.toHexString(actual));
            }
        }
    }
}
