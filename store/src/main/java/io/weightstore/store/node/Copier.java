package io.weightstore.store.node;

import io.weightstore.store.api.CopyOutcome;
import io.weightstore.store.api.CopyProgress;
import io.weightstore.store.api.CongestionControl;
import io.weightstore.store.api.CopyTask;
import io.weightstore.store.api.MasterApi;
import io.weightstore.store.api.Range;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.api.TransferDeadlines;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.client.access.SocketNodeAccess;
import io.weightstore.store.concurrent.DeadlineWait;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.security.Authentication;
import io.weightstore.store.security.ExpectedPeer;
import io.weightstore.store.security.Identity;
import io.weightstore.store.security.Role;
import io.weightstore.store.wire.BlockCheck;
import io.weightstore.store.wire.DeadlineTimer;
import io.weightstore.store.wire.TlsEndpoint;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the copies the master orders: reads a slice from another node over the data plane (with
 * the master's read grant for exactly that range), straight into this node's pool where the copy
 * goes, checking every block as it arrives; checks the whole copy again where it lies; and reports
 * to the master, which commits it only then. Pieces are paced by a {@link ByteRate}, so copies take
 * no more than their budget of the node's bandwidth. A copy the master stops listing was given up,
 * and stops after its current piece. No buffer of its own: bytes land in the pool's mapped memory.
 */
final class Copier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Copier.class);
    private static final long PIECE_BYTES = 4L << 20;

    /** A copy being made, how far it got, and whether the master gave it up. */
    private static final class Running {
        final CopyTask task;
        final AtomicLong done = new AtomicLong();
        final CountDownLatch ended = new CountDownLatch(1);
        volatile boolean cancelled;
        /** The thread making the copy while it may write into the pool; guarded by this. */
        private Thread worker;

        Running(CopyTask task) {
            this.task = task;
        }
    }

    private final PoolFile pool;
    private final MasterApi master;
    private final Authentication authentication;
    private final TransferDeadlines deadlines;
    private final DeadlineTimer timer;
    private final NodeCounters counters;
    private final VerifiedBlocks verified;
    private final CongestionControl congestionControl;
    private final ByteRate rate = new ByteRate(1);
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    /**
     * Copies that ended here, until a list comes without them: an answer made before the master heard of the end, or
     * after a report whose outcome is unknown, may still list one, and starting it again would write into room the master
     * may have freed. Guarded by {@link #running}, with which it changes together.
     */
    private final Set<String> finished = new HashSet<>();
    private final ExecutorService workers;

    Copier(PoolFile pool, MasterApi master, Authentication authentication, TransferDeadlines deadlines, DeadlineTimer timer,
            NodeCounters counters, VerifiedBlocks verified, CongestionControl congestionControl) {
        this(pool, master, authentication, deadlines, timer, counters, verified, congestionControl,
                Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("node-copy-" + pool.nodeId() + "-", 0).factory()));
    }

    /** As above, with copies made on {@code workers}. */
    Copier(PoolFile pool, MasterApi master, Authentication authentication, TransferDeadlines deadlines, DeadlineTimer timer,
            NodeCounters counters, VerifiedBlocks verified, CongestionControl congestionControl, ExecutorService workers) {
        this.congestionControl = congestionControl;
        this.pool = pool;
        this.verified = verified;
        this.authentication = authentication;
        this.master = master;
        this.deadlines = deadlines;
        this.timer = timer;
        this.counters = counters;
        this.workers = workers;
    }

    /** The master's current list: copies not on it stop, copies new on it start. */
    void accept(List<CopyTask> orders, long bytesPerSecond) {
        if (bytesPerSecond > 0) {
            rate.setRate(bytesPerSecond);
        }
        Set<String> listed = orders.stream().map(CopyTask::taskId).collect(Collectors.toSet());
        running.forEach((id, copy) -> {
            if (!listed.contains(id) && !copy.cancelled) {
                log.info("node {}: copy {} of slice {} of {} was given up by the master; stopping it", pool.nodeId(), id,
                        copy.task.slice(), copy.task.key());
                copy.cancelled = true;
            }
        });
        for (CopyTask task : orders) {
            Running copy = new Running(task);
            synchronized (running) {
                if (finished.contains(task.taskId()) || running.putIfAbsent(task.taskId(), copy) != null) {
                    continue;
                }
            }
            try {
                workers.execute(() -> run(copy));
            } catch (RuntimeException | OutOfMemoryError e) {
                // Not running, so not listed as running: the master lists it again, and the next heartbeat tries again.
                forget(copy, false);
                log.warn("node {}: cannot start copy {} of slice {} of {}: {}", pool.nodeId(), task.taskId(), task.slice(), task.key(),
                        e.toString());
            }
        }
        synchronized (running) {
            finished.retainAll(listed);
        }
    }

    /** Drops {@code copy}, which writes no more, from the running ones; as {@link #finished} too once it {@code ran}. */
    private void forget(Running copy, boolean ran) {
        synchronized (running) {
            if (ran) {
                finished.add(copy.task.taskId());
            }
            running.remove(copy.task.taskId());
        }
        copy.ended.countDown();
    }

    /**
     * Gives up every copy, and waits until {@code deadline} (a {@link System#nanoTime} value) for all of them
     * to stop writing into the pool; false when some still may. Copies are interrupted rather than left to
     * finish their piece: one may sleep its turn at the copy rate for a long while and then still write.
     */
    boolean stopAll(long deadline) {
        List<Running> stopping = List.copyOf(running.values());
        for (Running copy : stopping) {
            synchronized (copy) {
                copy.cancelled = true;
                if (copy.worker != null) {
                    copy.worker.interrupt();
                }
            }
        }
        for (Running copy : stopping) {
            if (!DeadlineWait.await(copy.ended, deadline)) {
                return false;
            }
        }
        return true;
    }

    /** Every copy still writing into the pool, with its progress: the master keeps a given-up copy's room until it is gone from here. */
    List<CopyProgress> progress() {
        List<CopyProgress> progress = new ArrayList<>();
        running.values().forEach(copy -> progress.add(new CopyProgress(copy.task.taskId(), copy.done.get())));
        return progress;
    }

    /** Makes the copy and reports it; it counts as running until then, and as finished after, so it is not started twice. */
    private void run(Running copy) {
        CopyTask task = copy.task;
        synchronized (copy) {
            copy.worker = Thread.currentThread();
        }
        try {
            CopyOutcome outcome = attempt(copy);
            if (copy.cancelled) {
                return;
            }
            master.finishCopy(pool.nodeId(), task.taskId(), outcome);
        } catch (StoreException e) {
            // Not started over when listed again: the master may have heard after all, and freed the room. One that did not
            // gives the copy up at its stall timeout and orders a new one.
            log.warn("node {}: could not report copy {} of slice {} of {}: {}", pool.nodeId(), task.taskId(), task.slice(), task.key(),
                    e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            synchronized (copy) {
                // Cleared before the thread goes back to the pool, so no later interrupt meant for this copy hits another.
                copy.worker = null;
            }
            forget(copy, true);
        }
    }

    private CopyOutcome attempt(Running copy) throws InterruptedException {
        String from = "from node " + copy.task.source().nodeId() + " at " + copy.task.source().endpoint() + ": ";
        try {
            copy(copy);
            return new CopyOutcome.Done();
        } catch (StoreException e) {
            // Bytes that fail their checksums on the way, or on the source where it checked them, are the source's.
            return new CopyOutcome.Failed(from + e.getMessage(), e.code() == StoreException.Code.CORRUPT);
        } catch (IOException e) {
            return new CopyOutcome.Failed(from + e.getMessage(), false);
        } catch (CopyCorrupted e) {
            return new CopyOutcome.Failed(e.getMessage(), false);
        } catch (RuntimeException e) {
            // An order this node cannot carry out (room outside its pool, fewer checksums than blocks): unreported, the
            // master would list it again and it would fail the same way at every heartbeat. One line, no trace: the master
            // may order the same copy again.
            log.warn("node {}: copy {} of slice {} of {} cannot be made: {}", pool.nodeId(), copy.task.taskId(), copy.task.slice(),
                    copy.task.key(), e.toString());
            log.debug("node {}: copy {} cannot be made", pool.nodeId(), copy.task.taskId(), e);
            return new CopyOutcome.Failed("node " + pool.nodeId() + " cannot make the copy of slice " + copy.task.slice() + " of "
                    + copy.task.key() + ": " + e, false);
        }
    }

    /** A copy that did not check out in this node's own pool after every block arrived intact. */
    private static final class CopyCorrupted extends Exception {
        private static final long serialVersionUID = 1L;

        CopyCorrupted(String message) {
            super(message);
        }
    }

    private void copy(Running copy) throws IOException, InterruptedException, CopyCorrupted {
        CopyTask task = copy.task;
        MemorySegment target = pool.data().asSlice(task.targetOffset(), task.length());
        // The copy lands in the pool's memory, not through a WRITE: what was checked there before is checked again after.
        try (VerifiedBlocks.Writing writing = verified.writing(task.targetOffset(), task.length())) {
            fill(copy, target);
        }
        if (copy.cancelled) {
            return;
        }
        for (BlockCheck check : blocks(task, 0, 0, task.length())) {
            int actual = Checksums.crc32c(target.asSlice(check.offset(), check.length()));
            if (actual != check.crc32c()) {
                throw new CopyCorrupted("the copy of slice " + task.slice() + " of " + task.key() + " does not match its checksum at byte "
                        + check.offset() + " in node " + pool.nodeId() + "'s pool after it arrived intact");
            }
        }
    }

    /** Reads the slice from its source into {@code target}, piece by piece at the copy rate, until done or given up. */
    private void fill(Running copy, MemorySegment target) throws IOException, InterruptedException {
        CopyTask task = copy.task;
        int block = task.checksumBlockSize();
        long piece = Math.max(block, PIECE_BYTES / block * block);
        try (SocketNodeAccess source = new SocketNodeAccess(task.source().endpoint().host(), task.source().endpoint().port(),
                task.source().poolUuid(), tlsTo(task.source().nodeId()), task::readGrant, deadlines, timer, congestionControl)) {
            for (long at = 0; at < task.length() && !copy.cancelled; at += piece) {
                long length = Math.min(piece, task.length() - at);
                rate.acquire(length);
                source.read(List.of(new Range(task.sourceOffset() + at, length)), blocks(task, task.sourceOffset(), at, length),
                        target.asSlice(at, length));
                copy.done.set(at + length);
                counters.copied(length);
            }
        }
    }

    /**
     * On a secure cluster, TLS to the source as any client dials a node: this node's certificate, and
     * a source that must prove to be the node the master named (the read grant is sealed for it alone).
     */
    private Optional<TlsEndpoint> tlsTo(String sourceNodeId) throws StoreException {
        if (authentication instanceof Authentication.Insecure) {
            return Optional.empty();
        }
        try {
            return Optional.of(TlsEndpoint.client(authentication, ExpectedPeer.exactly(new Identity(sourceNodeId, Role.NODE))));
        } catch (GeneralSecurityException e) {
            throw new StoreException(StoreException.Code.IO, "cannot set up TLS to node " + sourceNodeId + ": " + e.getMessage(), e);
        }
    }

    /** The checksum blocks of bytes {@code from .. from + length} of the slice, placed at {@code base} in a pool. */
    private static List<BlockCheck> blocks(CopyTask task, long base, long from, long length) {
        int block = task.checksumBlockSize();
        List<BlockCheck> checks = new ArrayList<>();
        for (long start = from; start < from + length; start += block) {
            int index = (int) (start / block);
            checks.add(new BlockCheck(base + start, (int) Math.min(block, task.length() - start), task.crcs().get(index)));
        }
        return checks;
    }

    @Override
    public void close() {
        running.values().forEach(copy -> copy.cancelled = true);
        workers.shutdownNow();
    }

    /** Whether every copy's thread ended by {@code deadline} (a {@link System#nanoTime} value), after {@link #close}. */
    boolean awaitEnd(long deadline) {
        return DeadlineWait.termination(workers, deadline);
    }
}
