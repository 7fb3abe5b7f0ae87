package io.weightstore.store.client;

import io.weightstore.store.api.BlockCrcs;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeInfo;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Progress;
import io.weightstore.store.api.PutGrant;
import io.weightstore.store.api.PutOptions;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.checksum.Checksums;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Writes objects: reserves the space with the master, sends each slice to every node that holds
 * one of its replicas, computes the slice's block checksums, and seals the object. A put that fails
 * is aborted, so its space is freed at once.
 */
final class SliceWriter {
    private static final long STREAM_ALIGNMENT = 64;

    private final MasterApi master;
    private final ExecutorService workers;
    private final NodeConnections connections;

    SliceWriter(MasterApi master, ExecutorService workers, NodeConnections connections) {
        this.master = master;
        this.workers = workers;
        this.connections = connections;
    }

    /**
     * Slices go to their nodes in parallel, each to all its replicas. A put that fails returns once
     * none of its writes runs, and only then frees its space: {@code data} may be gone after it returns.
     */
    ObjectMeta put(String key, MemorySegment data, PutOptions options, Progress progress) throws IOException {
        PutGrant grant = start(key, data.byteSize(), options);
        try {
            List<RunningTasks.Call<BlockCrcs>> writes = new ArrayList<>();
            for (SliceMeta slice : grant.object().slices()) {
                writes.add(() -> {
                    BlockCrcs crcs = write(grant, slice, data.asSlice(slice.offset(), slice.length()));
                    progress.advanced(slice.length());
                    return crcs;
                });
            }
            List<BlockCrcs> checksums = RunningTasks.callAll(workers, writes);
            return master.putEnd(grant.putId(), checksums);
        } catch (IOException | RuntimeException e) {
            abort(grant, e);
            throw e;
        }
    }

    /** One slice at a time through a single reused off-heap buffer, so memory stays bounded whatever the size. */
    ObjectMeta put(String key, InputStream in, long size, PutOptions options, Progress progress) throws IOException {
        PutGrant grant = start(key, size, options);
        try (Arena arena = Arena.ofConfined()) {
            ObjectMeta object = grant.object();
            MemorySegment buffer = arena.allocate(Math.max(1, Math.min(size, object.sliceSize())), STREAM_ALIGNMENT);
            byte[] chunk = new byte[64 << 10];
            List<BlockCrcs> checksums = new ArrayList<>();
            for (SliceMeta slice : object.slices()) {
                MemorySegment sliceData = buffer.asSlice(0, slice.length());
                for (long filled = 0; filled < slice.length(); ) {
                    int n = in.read(chunk, 0, (int) Math.min(chunk.length, slice.length() - filled));
                    if (n < 0) {
                        throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "stream for " + key + " ended at byte "
                                + (slice.offset() + filled) + ", expected " + size);
                    }
                    MemorySegment.copy(chunk, 0, sliceData, ValueLayout.JAVA_BYTE, filled, n);
                    filled += n;
                }
                checksums.add(write(grant, slice, sliceData));
                progress.advanced(slice.length());
            }
            return master.putEnd(grant.putId(), checksums);
        } catch (IOException | RuntimeException e) {
            abort(grant, e);
            throw e;
        }
    }

    /** Reserves the space, and keeps the grant's session tickets for the connections that carry its bytes. */
    private PutGrant start(String key, long size, PutOptions options) throws StoreException {
        PutGrant grant = master.putStart(key, size, options);
        connections.admit(grant.tickets());
        return grant;
    }

    private BlockCrcs write(PutGrant grant, SliceMeta slice, MemorySegment data) throws IOException {
        BlockCrcs crcs = BlockCrcs.of(Checksums.blockCrcs(data, grant.object().checksumBlockSize()));
        for (ReplicaRef replica : slice.replicas()) {
            NodeInfo node = grant.nodes().get(replica.nodeId());
            if (node == null) {
                throw new StoreException(StoreException.Code.PROTOCOL, "master placed a replica on unknown node " + replica.nodeId());
            }
            try {
                connections.access(node).write(replica.offset(), data, grant.writeGrants().getOrDefault(replica, Ticket.none()));
            } catch (IOException e) {
                throw new StoreException(e instanceof StoreException s ? s.code() : StoreException.Code.UNAVAILABLE,
                        "writing slice at " + slice.offset() + " of " + grant.object().key() + " to node " + node.nodeId()
                                + " failed: " + e.getMessage(), e);
            }
        }
        return crcs;
    }

    private void abort(PutGrant grant, Exception cause) {
        try {
            master.putAbort(grant.putId());
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }
}
