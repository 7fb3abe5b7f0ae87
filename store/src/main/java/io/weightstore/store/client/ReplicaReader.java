package io.weightstore.store.client;

import io.weightstore.store.api.Located;
import io.weightstore.store.api.NodeStatus;
import io.weightstore.store.api.ObjectMeta;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.ReplicaRef;
import io.weightstore.store.api.SliceMeta;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.client.access.BusyPauses;
import io.weightstore.store.client.access.MappedNodeAccess;
import io.weightstore.store.client.access.NodeAccess;
import io.weightstore.store.client.access.NodeBusy;
import io.weightstore.store.client.access.OnBusy;
import io.weightstore.store.client.plan.ReadPlanner;
import io.weightstore.store.client.plan.ReadTask;
import io.weightstore.store.metrics.ClientMetrics;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches of reads: plans each into tasks, spreads the tasks over the client's workers, and
 * serves each task from the first replica of its slice that answers without error. Every byte is
 * checked against the slice's checksums on the way.
 */
final class ReplicaReader {
    private static final Logger log = LoggerFactory.getLogger(ReplicaReader.class);
    /** Never started; asks whether a segment may be used from threads other than its owner. */
    private static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() -> {});

    /** One task of one read, with where its bytes go. */
    private record Job(ObjectReader object, ReadTask task, MemorySegment dst, Optional<ArrivedCrc> crc) {}

    private final ExecutorService workers;
    private final NodeConnections connections;
    private final ReplicaChooser chooser;
    private final long maxPieceBytes;
    private final TransferDeadlines deadlines;
    private final LongAdder bytesRead = new LongAdder();
    private final ClientMetrics metrics;

    ReplicaReader(ExecutorService workers, NodeConnections connections, long maxPieceBytes, TransferDeadlines deadlines,
            ClientMetrics metrics) {
        this.workers = workers;
        this.deadlines = deadlines;
        this.connections = connections;
        this.chooser = new ReplicaChooser(connections);
        this.maxPieceBytes = maxPieceBytes;
        this.metrics = metrics;
    }

    long bytesRead() {
        return bytesRead.sum();
    }

    /** All reads are checked before any byte moves, then run as one scatter-gather operation. */
    void read(List<Read> reads) throws IOException {
        List<Job> jobs = new ArrayList<>();
        for (Read read : reads) {
            ObjectMeta object = read.object().located().object();
            List<ReadTask> tasks = switch (read) {
                case Read.Ranges r -> plan(r, object);
                case Read.Strided r -> plan(r, object);
            };
            Optional<ArrivedCrc> crc = read instanceof Read.Strided r ? r.crc() : Optional.empty();
            tasks.forEach(task -> jobs.add(new Job(read.object(), task, read.dst(), crc)));
        }
        execute(jobs);
    }

    private List<ReadTask> plan(Read.Ranges read, ObjectMeta object) throws StoreException {
        long total = 0;
        for (Range range : read.ranges()) {
            // Not range.end(): an offset and length that each fit a long may not sum to one, and a negative end planned no
            // piece at all, so the read returned with nothing read into its destination.
            if (range.offset() > object.size() || range.length() > object.size() - range.offset()) {
                throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "range offset=" + range.offset() + " length="
                        + range.length() + " is outside " + object.key() + " of " + object.size() + " bytes");
            }
            total += range.length();
        }
        requireRoom(object.key(), read.dst(), total);
        return ReadPlanner.ranges(object, read.ranges(), maxPieceBytes);
    }

    private List<ReadTask> plan(Read.Strided read, ObjectMeta object) throws StoreException {
        if (read.stride().end() > object.size()) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "strided read of " + object.key() + " ends at "
                    + read.stride().end() + ", past its " + object.size() + " bytes");
        }
        requireRoom(object.key(), read.dst(), read.stride().bytes());
        return ReadPlanner.strided(object, read.stride(), maxPieceBytes);
    }

    private static void requireRoom(String key, MemorySegment dst, long bytes) throws StoreException {
        if (dst.byteSize() < bytes) {
            throw new StoreException(StoreException.Code.INVALID_ARGUMENT, "destination of " + dst.byteSize()
                    + " bytes is too small for " + bytes + " bytes of " + key);
        }
    }

    private void execute(List<Job> jobs) throws IOException {
        // A destination from a confined arena may only be touched by its owner: serve it piece by piece here.
        if (jobs.size() == 1 || jobs.stream().anyMatch(job -> !job.dst().isAccessibleBy(NOT_THE_OWNER))) {
            for (Job job : jobs) {
                run(job);
            }
            return;
        }
        // The read returns once none of its jobs runs, so none writes into dst after, whatever ended it.
        List<RunningTasks.Task> tasks = new ArrayList<>(jobs.size());
        for (Job job : spreadOverNodes(jobs)) {
            tasks.add(() -> run(job));
        }
        RunningTasks.runAll(workers, tasks);
    }

    /**
     * The jobs in an order that takes turns between the nodes that will serve them (each job's first
     * replica choice). The workers take jobs in order, and a batch in file order keeps all of them on
     * one slice, so on one node, at a time: loaders that read one checkpoint at once then queue on
     * one node's link while the others idle.
     */
    private List<Job> spreadOverNodes(List<Job> jobs) throws StoreException {
        Map<Job, String> firstChoice = new IdentityHashMap<>();
        for (Job job : jobs) {
            List<ReplicaRef> order = chooser.order(job.object().located(), job.task().slice());
            firstChoice.put(job, order.isEmpty() ? "" : order.getFirst().nodeId());
        }
        return takingTurns(jobs, firstChoice::get);
    }

    /** {@code items} reordered to take turns between their keys (in the order keys first appear), each key's items in order. */
    static <T> List<T> takingTurns(List<T> items, Function<T, ?> key) {
        Map<Object, ArrayDeque<T>> byKey = new LinkedHashMap<>();
        for (T item : items) {
            byKey.computeIfAbsent(key.apply(item), k -> new ArrayDeque<>()).add(item);
        }
        List<T> turns = new ArrayList<>(items.size());
        while (turns.size() < items.size()) {
            for (ArrayDeque<T> queue : byKey.values()) {
                if (!queue.isEmpty()) {
                    turns.add(queue.poll());
                }
            }
        }
        return turns;
    }

    private void run(Job job) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Located located = job.object().located();
            try {
                // Past its lease the object's room may be another's: asking the master again takes a new lease, or fails.
                job.object().requireLeaseHeld();
                fromReplicas(located, job.task(), job.dst(), job.crc());
                bytesRead.add(job.task().bytes());
                return;
            } catch (StoreException e) {
                // Every replica failed, or the lease ran out. A node may have come back on another port: look again once.
                // Not for nodes that stayed busy: they are where the master says, and asking it again only adds a call per piece.
                if (attempt > 0 || e.code() != StoreException.Code.UNAVAILABLE || e.getCause() instanceof NodeBusy) {
                    throw e;
                }
                job.object().relocate(located);
            }
        }
    }

    /**
     * Asks the slice's replicas in the chooser's order. A node with no connection to spare is passed over
     * at once, since another replica may have one; when none served, the busy ones are asked again in
     * turn after {@link BusyPauses}, until one has a place or the base deadline has passed, so that no
     * replica is waited on alone while another frees up.
     */
    private void fromReplicas(Located located, ReadTask task, MemorySegment dst, Optional<ArrivedCrc> crc) throws IOException {
        ObjectMeta object = located.object();
        SliceMeta slice = object.slice(task.slice());
        Attempts attempts = new Attempts();
        List<ReplicaRef> toAsk = chooser.order(located, task.slice());
        BusyPauses pauses = null;
        while (true) {
            List<ReplicaRef> busy = new ArrayList<>();
            for (ReplicaRef replica : toAsk) {
                NodeStatus node = located.nodes().get(replica.nodeId());
                if (node == null) {
                    attempts.add(replica.nodeId() + ": unknown node", false);
                    continue;
                }
                switch (ask(node, replica.offset(), object, task, dst, crc, attempts)) {
                    case SERVED -> {
                        return;
                    }
                    case BUSY -> busy.add(replica);
                    case FAILED -> { }
                }
            }
            if (busy.isEmpty()) {
                break;
            }
            pauses = pauses == null ? new BusyPauses(deadlines.base()) : pauses;
            if (!pauses.pause("slice " + task.slice() + " of " + object.key())) {
                for (ReplicaRef replica : busy) {
                    // Busy past the base deadline: the next pieces go to the other replicas first, rather than each wait as long.
                    metrics.replicaUnavailable();
                    chooser.suspect(replica.nodeId());
                    attempts.addStayedBusy(replica.nodeId() + ": busy (every connection it allows at work) for "
                            + deadlines.base().toMillis() + " ms");
                }
                break;
            }
            toAsk = busy;
        }
        throw new StoreException(attempts.allCorrupt() ? StoreException.Code.CORRUPT : StoreException.Code.UNAVAILABLE,
                "no replica could serve slice " + task.slice() + " (bytes " + slice.offset() + ".." + slice.end() + ") of "
                        + object.key() + ": " + attempts, attempts.onlyBusy());
    }

    /** How one replica answered a task. */
    private enum Answer { SERVED, BUSY, FAILED }

    /** How one task's asks of its replicas went so far. */
    private static final class Attempts {
        private final List<String> errors = new ArrayList<>();
        private final Set<String> foundBusy = new HashSet<>();
        private boolean allCorrupt = true;
        private boolean allStayedBusy = true;
        private String firstAsked;
        private NodeBusy lastBusy;

        void asking(String nodeId) {
            if (firstAsked == null) {
                firstAsked = nodeId;
            }
        }

        /** Whether {@code nodeId}, which served the task, is not the replica asked first. */
        boolean servedByAnother(String nodeId) {
            return !nodeId.equals(firstAsked);
        }

        /** {@code nodeId} answered BUSY; true the first time it did for this task. */
        boolean foundBusy(String nodeId, NodeBusy busy) {
            lastBusy = busy;
            return foundBusy.add(nodeId);
        }

        void add(String error, boolean corrupt) {
            errors.add(error);
            allCorrupt &= corrupt;
            allStayedBusy = false;
        }

        void addStayedBusy(String error) {
            errors.add(error);
            allCorrupt = false;
        }

        boolean allCorrupt() {
            return allCorrupt && !errors.isEmpty();
        }

        /** The last BUSY answer, when every replica failed by staying busy; else null. */
        NodeBusy onlyBusy() {
            return allStayedBusy && !errors.isEmpty() ? lastBusy : null;
        }

        @Override
        public String toString() {
            return String.join("; ", errors);
        }
    }

    /**
     * Runs {@code task} on {@code node}'s replica at {@code replicaOffset}, unless the node is busy. A
     * failure is logged and added to {@code attempts}.
     */
    private Answer ask(NodeStatus node, long replicaOffset, ObjectMeta object, ReadTask task, MemorySegment dst,
            Optional<ArrivedCrc> crc, Attempts attempts) throws IOException {
        attempts.asking(node.nodeId());
        chooser.asking(node.nodeId(), task.bytes());
        try (NodeConnections.Held held = connections.hold(node.info())) {
            long start = System.nanoTime();
            int delivered = task.run(held.access(), replicaOffset, ReadPlanner.checks(task, object, replicaOffset), dst,
                    crc.isPresent(), OnBusy.FAIL_AT_ONCE);
            crc.ifPresent(c -> c.piece(task.dstOffset(), task.bytes(), delivered));
            metrics.pieceRead(node.nodeId(), held.access() instanceof MappedNodeAccess, task.bytes(), System.nanoTime() - start);
            chooser.answered(node.nodeId());
            if (attempts.servedByAnother(node.nodeId())) {
                metrics.failedOver();
            }
            return Answer.SERVED;
        } catch (NodeBusy e) {
            // Every connection the node allows is at work, which passes as soon as a transfer ends: the next pieces go to
            // the other replicas first for a moment, not for a suspect's while.
            if (attempts.foundBusy(node.nodeId(), e)) {
                metrics.replicaBusy();
            }
            chooser.busy(node.nodeId(), task.bytes());
            log.debug("slice {} of {}: node {} busy, asking another replica first", task.slice(), object.key(), node.nodeId());
            return Answer.BUSY;
        } catch (StoreException e) {
            if (connections.isClosed()) {
                throw e;
            }
            // Every range was checked against the object before any byte moved, so a node that calls one outside
            // its pool (INVALID_ARGUMENT) is faulty, or lied to on the way, like one that answers with bad bytes.
            if (e.code() == StoreException.Code.CORRUPT) {
                metrics.replicaCorrupt();
            } else {
                metrics.replicaUnavailable();
            }
            attempts.add(node.nodeId() + ": " + e.getMessage(), e.code() == StoreException.Code.CORRUPT);
            log.warn("slice {} of {} failed on node {}: {}", task.slice(), object.key(), node.nodeId(), e.getMessage());
            return Answer.FAILED;
        } catch (IOException e) {
            if (Thread.currentThread().isInterrupted()) {
                // The read was cancelled (an interrupt closes the channel under it): no node is to blame, none to ask next.
                InterruptedIOException cancelled = new InterruptedIOException("read of slice " + task.slice() + " of "
                        + object.key() + " interrupted");
                cancelled.initCause(e);
                throw cancelled;
            }
            if (connections.isClosed()) {
                throw new StoreException(StoreException.Code.UNAVAILABLE, "the store client was closed during the read of slice "
                        + task.slice() + " of " + object.key(), e);
            }
            metrics.replicaUnreachable();
            chooser.suspect(node.nodeId());
            attempts.add(node.nodeId() + ": " + e.getMessage(), false);
            log.warn("slice {} of {} unreachable on node {}: {}", task.slice(), object.key(), node.nodeId(), e.getMessage());
            return Answer.FAILED;
        }
    }
}
