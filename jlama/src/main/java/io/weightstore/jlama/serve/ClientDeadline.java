package io.weightstore.jlama.serve;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How long a request's thread may block on its client's socket: reading the whole body, or writing
 * one part of the answer. Helidon applies no timeout to either, so a client that trickles its body
 * or stops reading a stream would hold a thread, a connection and, streaming, a generation slot for
 * ever. Past the limit the request's thread is interrupted; a virtual thread (Helidon runs each
 * request on one) interrupted in a socket read or write closes that socket (JEP 444), so the call
 * fails at once and the connection is gone.
 */
final class ClientDeadline implements AutoCloseable {
    private final Duration limit;
    private final ScheduledThreadPoolExecutor timer;

    ClientDeadline(Duration limit) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("the client deadline must be positive: limit=" + limit);
        }
        this.limit = limit;
        this.timer = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("serve-client-deadline").factory());
        // Every streamed token arms one alarm and disarms it a moment later: cancelled alarms must not pile up.
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Runs {@code io}, which blocks on the client's socket, on this thread. When it fails because the
     * limit passed, the failure is {@code tooSlow} of the limit; an {@code io} that finished meanwhile
     * keeps its result.
     */
    <T> T within(Supplier<T> io, Function<Duration, ClientGone> tooSlow) {
        return within(limit, io, tooSlow);
    }

    /** As {@link #within(Supplier, Function)}, bounded by {@code bound} instead of the limit (what is left of a budget). */
    <T> T within(Duration bound, Supplier<T> io, Function<Duration, ClientGone> tooSlow) {
        Armed armed = arm(bound, () -> {});
        try {
            return io.get();
        } catch (RuntimeException e) {
            if (armed.disarm()) {
                ClientGone slow = tooSlow.apply(limit);
                slow.addSuppressed(e);
                throw slow;
            }
            throw e;
        } finally {
            armed.disarm();
        }
    }

    /**
     * Arms an alarm that interrupts this thread once the limit passes, running {@code rang} first, for
     * a wait that does not fit in one call (Helidon's reading of a request's headers).
     */
    Armed arm(Runnable rang) {
        return arm(limit, rang);
    }

    private Armed arm(Duration bound, Runnable rang) {
        Alarm alarm = new Alarm(Thread.currentThread(), rang);
        return new Armed(alarm, timer.schedule(alarm, bound.toNanos(), TimeUnit.NANOSECONDS));
    }

    Duration limit() {
        return limit;
    }

    /** As {@link #within(Supplier, Function)}, for a call with no result. */
    void within(Runnable io, Function<Duration, ClientGone> tooSlow) {
        within(() -> {
            io.run();
            return null;
        }, tooSlow);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** An alarm on one thread, until disarmed. */
    static final class Armed {
        private final Alarm alarm;
        private final ScheduledFuture<?> scheduled;

        private Armed(Alarm alarm, ScheduledFuture<?> scheduled) {
            this.alarm = alarm;
            this.scheduled = scheduled;
        }

        /** Whether it rang; its interrupt, if what it bounded did not consume it, is cleared. Call on the armed thread. */
        boolean disarm() {
            boolean rang = alarm.disarm();
            scheduled.cancel(false);
            return rang;
        }
    }

    /**
     * Interrupts its thread unless disarmed first. Both under one lock, so that once {@link #disarm}
     * returns no interrupt can still arrive and land on whatever the thread does next.
     */
    private static final class Alarm implements Runnable {
        private final Thread thread;
        private final Runnable rang;
        private boolean disarmed;
        private boolean interrupted;

        Alarm(Thread thread, Runnable rang) {
            this.thread = thread;
            this.rang = rang;
        }

        @Override
        public synchronized void run() {
            // A thread that ended (a connection Helidon dropped between its request line and headers) has nothing to stop.
            if (!disarmed && thread.isAlive()) {
                interrupted = true;
                rang.run();
                thread.interrupt();
            }
        }

        synchronized boolean disarm() {
            disarmed = true;
            if (interrupted) {
                Thread.interrupted();
            }
            return interrupted;
        }
    }
}
