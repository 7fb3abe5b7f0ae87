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
        Alarm alarm = new Alarm(Thread.currentThread());
        ScheduledFuture<?> armed = timer.schedule(alarm, limit.toNanos(), TimeUnit.NANOSECONDS);
        T result;
        try {
            result = io.get();
        } catch (RuntimeException e) {
            if (alarm.disarm()) {
                ClientGone slow = tooSlow.apply(limit);
                slow.addSuppressed(e);
                throw slow;
            }
            throw e;
        } finally {
            armed.cancel(false);
        }
        alarm.disarm();
        return result;
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

    /**
     * Interrupts its thread unless disarmed first. Both under one lock, so that once {@link #disarm}
     * returns no interrupt can still arrive and land on whatever the thread does next.
     */
    private static final class Alarm implements Runnable {
        private final Thread thread;
        private boolean disarmed;
        private boolean rang;

        Alarm(Thread thread) {
            this.thread = thread;
        }

        @Override
        public synchronized void run() {
            if (!disarmed) {
                rang = true;
                thread.interrupt();
            }
        }

        /** Whether it rang; its interrupt, if the call it bounded did not consume it, is cleared. */
        synchronized boolean disarm() {
            disarmed = true;
            if (rang) {
                Thread.interrupted();
            }
            return rang;
        }
    }
}
