package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.RepairGrant;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.Ticket;
import io.weightstore.store.client.access.NodeAccess;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.client.plan.ReadPlanner;
import io.weightstore.store.client.plan.ReadTask;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Rewrites bad and missing copies of an object's slices from good ones. Each copy is one repair
 * with the master: it hands out room (the bad copy's own range when its node is up, else room on
 * another node), the bytes are read from a good copy (checked as they arrive), written, checked
 * again on the new copy's node with every block, and only then committed into the object's
 * metadata. Until the commit readers keep using the copies they had; a repair that fails is
 * aborted, which frees its room and leaves the metadata as it was.
 */
final class ReplicaRepairer {
    private final MasterApi master;
    private final NodeConnections connections;
    private final long pieceBytes;

    ReplicaRepairer(MasterApi master, NodeConnections connections, long pieceBytes) {
        this.master = master;
        this.connections = connections;
        this.pieceBytes = pieceBytes;
    }

    /** One outcome per copy set out to rewrite, in slice order; slices with nothing bad are left alone. */
    List<RepairOutcome> repair(Located located, List<ReplicaVerdict> verdicts) {
        if (verdicts.stream().anyMatch(v -> v.state() == ReplicaVerdict.State.PRESENT)) {
            throw new IllegalArgumentException("repair needs verdicts from checkReplicas(): a PRESENT copy was never read, so it"
                    + " cannot be trusted as a source");
        }
        ObjectMeta object = located.object();
        List<RepairOutcome> outcomes = new ArrayList<>();
        for (int slice = 0; slice < object.slices().size(); slice++) {
            List<ReplicaRef> good = new ArrayList<>();
            List<String> toReplace = new ArrayList<>();
            for (ReplicaVerdict verdict : verdicts) {
                if (verdict.slice() == slice) {
                    if (verdict.state() == ReplicaVerdict.State.OK) {
                        good.add(verdict.replica());
                    } else {
                        toReplace.add(verdict.nodeId());
                    }
                }
            }
            // A copy the slice lacks altogether (its node was forgotten) is added: "" asks for a new copy.
            int lacking = Math.max(0, object.replicas() - object.slice(slice).replicas().size());
            toReplace.addAll(Collections.nCopies(lacking, ""));
            for (String replacing : toReplace) {
                outcomes.add(good.isEmpty()
                        ? new RepairOutcome(slice, replacing, "", "", false, "no good copy of the slice to copy from")
                        : repairOne(located, slice, replacing, good));
            }
        }
        return outcomes;
    }

    private RepairOutcome repairOne(Located located, int slice, String replacing, List<ReplicaRef> sources) {
        ObjectMeta object = located.object();
        RepairGrant grant;
        try {
            grant = master.repairStart(object.key(), object.createdAt(), slice, replacing);
            connections.admit(grant.tickets());
        } catch (StoreException e) {
            return new RepairOutcome(slice, replacing, "", "", false, e.getMessage());
        }
        String node = grant.target().nodeId();
        try {
            String source = copy(located, grant, sources);
            master.repairEnd(grant.repairId());
            return new RepairOutcome(slice, replacing, node, source, true, "");
        } catch (IOException e) {
            abortQuietly(grant, e);
            return new RepairOutcome(slice, replacing, node, "", false, e.getMessage());
        } catch (RuntimeException e) {
            abortQuietly(grant, e);
            throw e;
        }
    }

    /**
     * Copies the slice from the first source that serves it whole, then has the new copy's node check every block. A
     * failure on the new copy's node ends the repair: another source would meet it too.
     */
    private String copy(Located located, RepairGrant grant, List<ReplicaRef> sources) throws IOException {
        List<IOException> failures = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        try (NodeConnections.Held target = connections.hold(grant.node())) {
            for (ReplicaRef source : sources) {
                NodeStatus node = located.nodes().get(source.nodeId());
                try (NodeConnections.Held from = connections.hold(node.info())) {
                    copySlice(located.object(), grant.slice(), from.access(), source.offset(), target.access(),
                            grant.target().offset(), grant.writeGrant());
                    onTarget(() -> target.access().verify(ReplicaChecker.wholeSlice(located.object(), grant.slice(),
                            grant.target().offset())));
                    return source.nodeId();
                } catch (TargetFailure e) {
                    IOException cause = e.getCause();
                    throw new StoreException(cause instanceof StoreException s ? s.code() : StoreException.Code.UNAVAILABLE,
                            "could not write slice " + grant.slice() + " of " + located.object().key() + " on node "
                                    + grant.target().nodeId() + ": " + cause.getMessage(), cause);
                } catch (IOException e) {
                    failures.add(e);
                    errors.add("from " + source.nodeId() + ": " + e.getMessage());
                }
            }
        }
        StoreException failed = new StoreException(StoreException.Code.UNAVAILABLE, "could not copy slice " + grant.slice() + " of "
                + located.object().key() + " to node " + grant.target().nodeId() + ": " + String.join("; ", errors),
                failures.isEmpty() ? null : failures.getFirst());
        failures.stream().skip(1).forEach(failed::addSuppressed);
        throw failed;
    }

    /** Piece by piece through one buffer, each piece whole checksum blocks, so every byte read is checked on arrival. */
    private void copySlice(ObjectMeta object, int slice, NodeAccess from, long fromOffset, NodeAccess to, long toOffset,
            Ticket writeGrant) throws IOException {
        SliceMeta meta = object.slice(slice);
        long block = object.checksumBlockSize();
        long piece = Math.max(block, pieceBytes / block * block);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(Math.min(piece, meta.length()), 64);
            for (long at = 0; at < meta.length(); at += piece) {
                long length = Math.min(piece, meta.length() - at);
                MemorySegment bytes = buffer.asSlice(0, length);
                ReadTask task = new ReadTask.Ranges(slice, List.of(new Range(at, length)), 0);
                task.run(from, fromOffset, ReadPlanner.checks(task, object, fromOffset), bytes, false, OnBusy.WAIT);
                long position = toOffset + at;
                onTarget(() -> to.write(position, bytes, writeGrant));
            }
        }
    }

    private interface TargetCall {
        void run() throws IOException;
    }

    /** Runs {@code call} on the new copy's node, telling its failure from a source's. */
    private static void onTarget(TargetCall call) throws TargetFailure {
        try {
            call.run();
        } catch (IOException e) {
            throw new TargetFailure(e);
        }
    }

    /** A failure on the new copy's node (unreachable, out of room, refusing the grant, or finding the copy bad). */
    private static final class TargetFailure extends IOException {
        private static final long serialVersionUID = 1L;

        TargetFailure(IOException cause) {
            super(cause.getMessage(), cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    private void abortQuietly(RepairGrant grant, Exception cause) {
        try {
            Uninterrupted.run(() -> master.repairAbort(grant.repairId()));
        } catch (StoreException e) {
            cause.addSuppressed(e);
        }
    }
}
