package io.weightstore.store.wire;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Deadlines for blocking socket I/O: a channel whose operation outlives its deadline is closed, so
 * the blocked read, write or sendfile fails at once and its thread is free. Arming costs a timer
 * entry, not a system call per read, so the transfer path keeps its blocking, zero-copy I/O.
 *
 * <p>A deadline can also watch for a stall: the operation reports {@link Deadline#progressed()}
 * as bytes move (a volatile write), and the channel is closed once nothing moved for the stall
 * window, however much time the whole operation has left. So a frozen peer is cut within the
 * window, while a slow one that keeps moving (a loaded machine, a cold JIT encrypting) gets the
 * whole allowance.
 *
 * <p>Closing the timer closes every channel it still guards, and a deadline armed after that
 * closes its channel at once: an operation is never left blocked without one (a client closed
 * while a thread waits on a frozen node).
 */
public final class DeadlineTimer implements AutoCloseable {
    private final ScheduledThreadPoolExecutor timer;
    private final Set<Deadline> armed = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    public DeadlineTimer(String threadName) {
        timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name(threadName).factory());
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Closes {@code channel} after {@code timeout} unless the returned deadline is closed first. */
    public Deadline arm(Closeable channel, Duration timeout) {
        return arm(channel, timeout, timeout);
    }

    /**
     * Closes {@code channel} after {@code timeout}, or once no progress was reported for
     * {@code stall}, unless the returned deadline is closed first.
     */
    public Deadline arm(Closeable channel, Duration timeout, Duration stall) {
        Deadline deadline = new Deadline(channel, timeout, stall.compareTo(timeout) < 0 ? stall : timeout);
        armed.add(deadline);
        try {
            deadline.schedule(Math.min(deadline.stallNanos, deadline.endNanos - System.nanoTime()));
        } catch (RejectedExecutionException stoppedMeanwhile) {
            deadline.cut();
        }
        // Checked after the deadline is in the set, which close() reads after setting the flag: one of the two ends it.
        if (stopped) {
            deadline.cut();
        }
        return deadline;
    }

    @Override
    public void close() {
        stopped = true;
        timer.shutdownNow();
        armed.forEach(Deadline::cut);
    }

    /** One armed deadline; closing it before it fires leaves the channel open. */
    public final class Deadline implements AutoCloseable {
        private final Closeable channel;
        private final Duration timeout;
        private final long endNanos;
        private final long stallNanos;
        private volatile long progressNanos = System.nanoTime();
        private volatile boolean watchingStall = true;
        private volatile ScheduledFuture<?> task;
        private volatile boolean expired;
        private volatile boolean stalled;
        private volatile boolean closed;

        private Deadline(Closeable channel, Duration timeout, Duration stall) {
            this.channel = channel;
            this.timeout = timeout;
            this.endNanos = progressNanos + timeout.toNanos();
            this.stallNanos = stall.toNanos();
        }

        private void schedule(long delayNanos) {
            task = timer.schedule(this::check, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        }

        /** Ends the operation: closes the channel, which this deadline guards no more. */
        private void cut() {
            armed.remove(this);
            try {
                channel.close();
            } catch (IOException ignored) {
                // The operation it cuts short reports why; a failed close changes nothing about that.
            }
        }

        /** Fires at the earlier of the end and the stall window after the last progress; re-arms while bytes move. */
        private void check() {
            if (closed) {
                return;
            }
            long now = System.nanoTime();
            long stallEnds = progressNanos + stallNanos;
            if (now - endNanos >= 0 || (watchingStall && now - stallEnds >= 0)) {
                stalled = now - endNanos < 0;
                expire();
            } else {
                try {
                    schedule((watchingStall ? Math.min(stallEnds, endNanos) : endNanos) - now);
                } catch (RejectedExecutionException stoppedMeanwhile) {
                    cut();
                }
            }
        }

        /** Bytes moved: the stall window starts again from now. */
        public void progressed() {
            progressNanos = System.nanoTime();
        }

        /**
         * The peer now works on what it received before it answers (a node checks every block of a
         * written slice), so no byte moves for a while that grows with the payload: from here only
         * the whole allowance applies, which counts those bytes.
         */
        public void awaitingPeerWork() {
            watchingStall = false;
        }

        /** Ends the operation as its time ran out; a cut that is not this (its timer stopped) leaves {@link #expired} false. */
        private void expire() {
            expired = true;
            cut();
        }

        /** Whether the deadline passed and closed the channel: an I/O error since then is this timeout. */
        public boolean expired() {
            return expired;
        }

        /** Whether it fired because nothing moved for the stall window, before the whole allowance ran out. */
        public boolean stalled() {
            return stalled;
        }

        public Duration timeout() {
            return timeout;
        }

        public Duration stall() {
            return Duration.ofNanos(stallNanos);
        }

        /** What happened, for a timeout's message: "moved nothing for 5000 ms", or "took longer than 7000 ms". */
        public String describe() {
            return stalled ? "moved nothing for " + stall().toMillis() + " ms" : "took longer than " + timeout.toMillis() + " ms";
        }

        @Override
        public void close() {
            closed = true;
            armed.remove(this);
            ScheduledFuture<?> scheduled = task;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }
}
