package io.weightstore.store.node;

import io.weightstore.store.api.ScrubFinding;
import io.weightstore.store.api.ScrubTask;
import io.weightstore.store.api.StoreException;
import io.weightstore.store.checksum.Checksums;
import io.weightstore.store.concurrent.DeadlineWait;
import io.weightstore.store.logging.RateLimitedLog;
import io.weightstore.store.metrics.NodeMetrics;
import io.weightstore.store.pool.PoolFile;
import io.weightstore.store.wire.BlockCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the node's replicas against their checksums in the background, at a bounded rate, so rot
 * in a copy nobody reads is found and rewritten before it is the last copy. The master hands out the
 * replicas to check (the node keeps no list of what it holds); the scrubber asks for about ten
 * seconds of work at a time, and reports each bad copy with the next heartbeat.
 */
final class Scrubber implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Scrubber.class);
    /** A bad copy is found again on every pass until it is rewritten: the master logs it once, the node a few times a minute. */
    private static final RateLimitedLog FOUND = new RateLimitedLog(log, 10, Duration.ofMinutes(1));
    /** Seconds of work asked for at a time, and the queue below which more is asked for. */
    private static final long ASK_SECONDS = 10;
    private static final long LOW_SECONDS = 5;
    /** How long a block found not matching waits for a write landing on it, before it is left for the next pass. */
    private static final Duration WRITE_WAIT = Duration.ofSeconds(30);

    private final PoolFile pool;
    private final long bytesPerSecond;
    private final NodeCounters counters;
    private final NodeMetrics metrics;
    private final VerifiedBlocks verified;
    private final ByteRate rate;
    private final LinkedBlockingQueue<ScrubTask> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final ConcurrentLinkedQueue<ScrubFinding> findings = new ConcurrentLinkedQueue<>();
    private final Thread thread;

    /** A scrubber at {@code bytesPerSecond}; at 0 it checks nothing and asks for nothing. */
    Scrubber(PoolFile pool, long bytesPerSecond, NodeCounters counters, NodeMetrics metrics, VerifiedBlocks verified) {
        this.pool = pool;
        this.verified = verified;
        this.bytesPerSecond = bytesPerSecond;
        this.counters = counters;
        this.metrics = metrics;
        this.rate = new ByteRate(Math.max(1, bytesPerSecond));
        this.thread = Thread.ofPlatform().daemon().name("node-scrub-" + pool.nodeId()).unstarted(this::loop);
        if (bytesPerSecond > 0) {
            thread.start();
        }
    }

    /** Bytes of replicas to ask the master for now: none while enough work is queued. */
    long room() {
        long queued = queuedBytes.get();
        return bytesPerSecond <= 0 || queued >= LOW_SECONDS * bytesPerSecond ? 0 : ASK_SECONDS * bytesPerSecond - queued;
    }

    void accept(List<ScrubTask> tasks) {
        for (ScrubTask task : tasks) {
            queuedBytes.addAndGet(task.length());
            queue.add(task);
        }
    }

    /** The bad copies found since the last call, for a heartbeat; {@link #putBack} them if it fails. */
    List<ScrubFinding> takeFindings() {
        List<ScrubFinding> taken = new ArrayList<>();
        for (ScrubFinding finding; (finding = findings.poll()) != null; ) {
            taken.add(finding);
        }
        return taken;
    }

    void putBack(List<ScrubFinding> unsent) {
        findings.addAll(unsent);
    }

    private void loop() {
        try {
            while (true) {
                ScrubTask task = queue.take();
                try {
                    check(task);
                } catch (RuntimeException e) {
                    log.error("node {}: could not scrub slice {} of {}: {}", pool.nodeId(), task.slice(), task.key(), e.getMessage(), e);
                } finally {
                    queuedBytes.addAndGet(-task.length());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void check(ScrubTask task) throws InterruptedException {
        int block = task.checksumBlockSize();
        if (task.offset() < 0 || task.length() > pool.capacity() - task.offset()) {
            return; // not a range of this pool: a master that does not know this node's size; nothing to check
        }
        for (int i = 0; (long) i * block < task.length(); i++) {
            long start = (long) i * block;
            int length = (int) Math.min(block, task.length() - start);
            rate.acquire(length);
            // Hashed through the mapping: a page the kernel cannot give (a failing device, a hole of a full tmpfs) would
            // end the node by SIGBUS, so the block's pages are asked for first, and such a block is a bad copy.
            try {
                pool.faultIn(task.offset() + start, length);
            } catch (StoreException e) {
                if (e.code() == StoreException.Code.CORRUPT) {
                    found(task, start, "block " + i + " at pool offset " + (task.offset() + start) + " cannot be read: " + e.getMessage());
                } else {
                    log.warn("node {}: slice {} of {} not scrubbed this pass: {}", pool.nodeId(), task.slice(), task.key(), e.getMessage());
                }
                return;
            }
            BlockCheck check = new BlockCheck(task.offset() + start, length, task.crcs().get(i));
            long writesBefore = verified.writesStarted();
            int actual = crc(check);
            counters.scrubbed(length);
            if (actual != check.crc32c() && (verified.writesStarted() != writesBefore || verified.beingWritten(check))) {
                // A write landed while the block was hashed, maybe on it: a rewrite in place of this very copy, which the
                // master ordered after it handed this task out. Reported as it was, the new copy would count bad again.
                if (!awaitNoWriteOn(check)) {
                    log.debug("node {}: slice {} of {} not scrubbed this pass: its block {} is being written", pool.nodeId(),
                            task.slice(), task.key(), i);
                    return;
                }
                actual = crc(check);
            }
            if (actual != check.crc32c()) {
                found(task, start, "checksum mismatch in block " + i + " at pool offset " + (task.offset() + start) + ": expected "
                        + Integer.toHexString(task.crcs().get(i)) + ", found " + Integer.toHexString(actual));
                return;
            }
        }
    }

    private int crc(BlockCheck check) {
        return Checksums.crc32c(pool.data().asSlice(check.offset(), check.length()));
    }

    /** Waits, up to {@link #WRITE_WAIT}, until no write the node sees lands on {@code check}'s block; false if one still does. */
    private boolean awaitNoWriteOn(BlockCheck check) throws InterruptedException {
        long deadline = System.nanoTime() + WRITE_WAIT.toNanos();
        while (verified.beingWritten(check)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /** Reports the task's copy bad, from its block at {@code start} in the slice on. */
    private void found(ScrubTask task, long start, String problem) {
        // Checked against the master's CRCs, not a reader's: this is rot in the pool.
        metrics.checksumFailure();
        // A block found intact by a read before it went bad would be served unchecked until its trust ran out; the
        // blocks after this one go unchecked by this pass, so none of them is trusted either.
        verified.forget(task.offset() + start, task.length() - start);
        FOUND.warn("node {}: slice {} of {} is bad: {}", pool.nodeId(), task.slice(), task.key(), problem);
        findings.add(new ScrubFinding(task.key(), task.version(), task.slice(), task.offset(), problem));
    }

    @Override
    public void close() {
        thread.interrupt();
    }

    /** Whether the scrubbing thread ended, or never ran, by {@code deadline} (a {@link System#nanoTime} value). */
    boolean awaitEnd(long deadline) {
        return DeadlineWait.join(thread, deadline);
    }
}
